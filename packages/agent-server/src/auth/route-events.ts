import type { AuthEvent } from "./types.js";

/**
 * The authorization event of every authenticated route, by method and route pattern. A route that
 * is not here is refused (403) when custom auth is on, so a new route cannot slip past auth.
 */
const EVENTS: Record<string, AuthEvent> = {
  "POST /threads": "threads:create",
  "POST /threads/search": "threads:search",
  "POST /threads/count": "threads:search",
  "GET /threads/:thread_id": "threads:read",
  "PATCH /threads/:thread_id": "threads:update",
  "DELETE /threads/:thread_id": "threads:delete",
  "POST /threads/:thread_id/copy": "threads:read",
  "GET /threads/:thread_id/state": "threads:read",
  "POST /threads/:thread_id/state": "threads:update",
  "GET /threads/:thread_id/state/:checkpoint_id": "threads:read",
  "POST /threads/:thread_id/state/checkpoint": "threads:read",
  "GET /threads/:thread_id/history": "threads:read",
  "POST /threads/:thread_id/history": "threads:read",
  "POST /threads/:thread_id/runs": "threads:create_run",
  "POST /threads/:thread_id/runs/stream": "threads:create_run",
  "POST /threads/:thread_id/runs/wait": "threads:create_run",
  "GET /threads/:thread_id/runs": "threads:read",
  "GET /threads/:thread_id/runs/:run_id": "threads:read",
  "GET /threads/:thread_id/runs/:run_id/join": "threads:read",
  "GET /threads/:thread_id/runs/:run_id/stream": "threads:read",
  "POST /threads/:thread_id/runs/:run_id/cancel": "threads:update",
  "DELETE /threads/:thread_id/runs/:run_id": "threads:delete",
  "POST /runs": "threads:create_run",
  "POST /runs/stream": "threads:create_run",
  "POST /runs/wait": "threads:create_run",
  "POST /runs/batch": "threads:create_run",
  "POST /runs/cancel": "threads:update",
  "POST /assistants": "assistants:create",
  "POST /assistants/search": "assistants:search",
  "POST /assistants/count": "assistants:search",
  "GET /assistants/:assistant_id": "assistants:read",
  "PATCH /assistants/:assistant_id": "assistants:update",
  "DELETE /assistants/:assistant_id": "assistants:delete",
  "POST /assistants/:assistant_id/versions": "assistants:read",
  "POST /assistants/:assistant_id/latest": "assistants:update",
  "GET /assistants/:assistant_id/graph": "assistants:read",
  "GET /assistants/:assistant_id/schemas": "assistants:read",
  "GET /assistants/:assistant_id/subgraphs": "assistants:read",
  "GET /assistants/:assistant_id/subgraphs/:namespace": "assistants:read",
  "PUT /store/items": "store:put",
  "GET /store/items": "store:get",
  "DELETE /store/items": "store:delete",
  "POST /store/items/search": "store:search",
  "POST /store/namespaces": "store:list_namespaces",
  "POST /runs/crons": "crons:create",
  "POST /threads/:thread_id/runs/crons": "crons:create",
  "POST /runs/crons/search": "crons:search",
  "POST /runs/crons/count": "crons:search",
  "GET /runs/crons/:cron_id": "crons:read",
  "PATCH /runs/crons/:cron_id": "crons:update",
  "DELETE /runs/crons/:cron_id": "crons:delete",
};

/**
 * Routes served without authentication: health and facts, as the official server does, and the
 * project's generative UI bundles (code the project ships, no user data; the agent token still applies).
 */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set([
  "GET /ok",
  "GET /info",
  "GET /metrics",
  "POST /ui/:agent",
  "GET /ui/:agent/:basename",
]);

/** The event of a route, or undefined when it has none. */
export function eventOf(method: string, routePattern: string): AuthEvent | undefined {
  return EVENTS[`${method} ${routePattern}`];
}

/** Every mapped route (tests check that each served route is mapped or public). */
export function mappedRoutes(): string[] {
  return Object.keys(EVENTS);
}
