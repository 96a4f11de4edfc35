import type { FastifyInstance, FastifyRequest } from "fastify";
import { AuthError, type CustomAuth } from "../auth/custom-auth.js";
import { filtersToPattern, matchesAuthFilters } from "../auth/filters.js";
import { eventOf, PUBLIC_ROUTES } from "../auth/route-events.js";
import type { AuthEvent, AuthUser } from "../auth/types.js";
import type { RunCaller } from "../domain/run-record.js";
import { NotFoundError } from "../errors.js";
import type { AssistantService } from "../services/assistants.js";
import type { ThreadStore } from "../storage/types.js";
import { type HeaderPolicy, headerIncluded } from "./project-http.js";

declare module "fastify" {
  interface FastifyInstance {
    /** The project's `http.configurable_headers` (null: the official default). */
    configurableHeaderPolicy: HeaderPolicy | null;
  }
  interface FastifyRequest {
    /** The user custom auth authenticated (absent without custom auth and on public routes). */
    authUser?: AuthUser;
  }
}

type Json = Record<string, unknown>;

function asObject(value: unknown): Json | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : undefined;
}

/**
 * The headers runs see in `configurable` (reference §2.7): by default `x-*` except credentials, and
 * `user-agent`; a project's `http.configurable_headers` narrows or widens that.
 */
function configurableHeaders(request: FastifyRequest): Record<string, string> {
  const policy = request.server.configurableHeaderPolicy ?? null;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === "string" && headerIncluded(policy, name)) out[name] = value;
  }
  return out;
}

/** Who a request acts for, as runs record it (`user_id`, auth keys and headers of `configurable`). */
export function callerOf(request: FastifyRequest): RunCaller {
  const user = request.authUser;
  const headers = configurableHeaders(request);
  return user ? { userId: user.identity, permissions: user.permissions, headers } : { userId: "", headers };
}

/** The request as a Web Request, which `authenticate` handlers receive (headers and URL; no body). */
function toWebRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  return new Request(`${request.protocol}://${request.host}${request.url}`, {
    method: request.method,
    headers,
  });
}

/** The `threads:create_run` value the official server passes: the run about to be created. */
function runValue(body: Json, threadId: string | null): Json {
  return {
    thread_id: threadId,
    assistant_id: body.assistant_id,
    run_id: null,
    status: "pending",
    metadata: (body.metadata as Json | undefined) ?? {},
    multitask_strategy: body.multitask_strategy ?? null,
    if_not_exists: body.if_not_exists ?? null,
    after_seconds: body.after_seconds ?? null,
    kwargs: body,
  };
}

/**
 * Custom auth on every route but the public ones: `onRequest` authenticates; `preHandler` runs the
 * route's event handler. Creates let the handler change the request (owner metadata, namespaces);
 * reads and changes of a thread or assistant answer 404 when its metadata does not match the
 * handler's filters; searches get the filters added to their metadata filter.
 */
export function registerCustomAuth(
  app: FastifyInstance,
  auth: CustomAuth,
  deps: { threads: ThreadStore; assistants: AssistantService },
): void {
  const routeKey = (request: FastifyRequest) => `${request.method} ${request.routeOptions.url ?? ""}`;
  // Fail fast: a route added without an authorization rule stops the server from starting.
  app.addHook("onRoute", (route) => {
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      if (method === "HEAD" || method === "OPTIONS") continue;
      const key = `${method} ${route.url}`;
      if (!PUBLIC_ROUTES.has(key) && !eventOf(method, route.url)) {
        throw new Error(`Route ${key} has no authorization rule (add it to auth/route-events.ts)`);
      }
    }
  });
  app.addHook("onRequest", async (request) => {
    if (request.routeOptions.url === undefined || PUBLIC_ROUTES.has(routeKey(request))) return;
    request.authUser = await auth.authenticate(toWebRequest(request));
  });
  app.addHook("preHandler", async (request) => {
    const user = request.authUser;
    if (!user) return;
    const event = eventOf(request.method, request.routeOptions.url ?? "");
    if (!event) throw new AuthError("Forbidden: this route has no authorization rule", 403);
    await authorizeRequest(request, event, user);
  });

  async function authorizeRequest(request: FastifyRequest, event: AuthEvent, user: AuthUser): Promise<void> {
    const params = asObject(request.params) ?? {};
    if (Array.isArray(request.body)) {
      for (const item of request.body)
        await auth.authorize(event, user, runValue(asObject(item) ?? {}, null));
      return;
    }
    const body = asObject(request.body) ?? {};
    if (request.body === undefined || request.body === null) request.body = body;
    const [resource, action] = event.split(":") as [string, string];

    if (resource === "store") {
      const query = asObject(request.query) ?? {};
      const value: Json =
        request.method === "GET"
          ? {
              namespace: typeof query.namespace === "string" ? query.namespace.split(".") : null,
              key: query.key,
            }
          : body;
      await auth.authorize(event, user, value);
      // A handler may scope the namespace to the user: what it leaves is what is used.
      if (request.method === "GET" && Array.isArray(value.namespace))
        query.namespace = value.namespace.join(".");
      return;
    }
    if (action === "search") {
      const filters = await auth.authorize(event, user, body);
      if (filters) body.metadata = { ...(asObject(body.metadata) ?? {}), ...filtersToPattern(filters) };
      return;
    }
    const threadId =
      typeof params.thread_id === "string"
        ? params.thread_id
        : typeof body.thread_id === "string" && event === "threads:update"
          ? body.thread_id
          : null;
    if (resource === "threads" && threadId) {
      const thread = await deps.threads.get(threadId);
      if (!thread) return; // the route answers its own 404
      const value =
        event === "threads:create_run" ? runValue(body, threadId) : { thread_id: threadId, ...body };
      const filters = await auth.authorize(event, user, value);
      if (event === "threads:create_run") body.metadata = value.metadata;
      if (filters && !matchesAuthFilters(thread.metadata, filters)) {
        throw new NotFoundError(`Thread with ID ${threadId} not found`);
      }
      return;
    }
    if (resource === "assistants" && typeof params.assistant_id === "string") {
      const assistant = await deps.assistants.get(params.assistant_id).catch(() => undefined);
      if (!assistant) return;
      const filters = await auth.authorize(event, user, { assistant_id: assistant.assistant_id, ...body });
      if (filters && !matchesAuthFilters(assistant.metadata, filters)) {
        throw new NotFoundError("Assistant not found");
      }
      return;
    }
    // Creates (the handler may add owner metadata to the body) and cron events by id.
    const value = event === "threads:create_run" ? runValue(body, null) : { ...params, ...body };
    await auth.authorize(event, user, event === "threads:create_run" ? value : body);
    if (event === "threads:create_run") body.metadata = value.metadata;
  }
}
