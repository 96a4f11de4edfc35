import { DomainError } from "../errors.js";
import type { AuthEvent, AuthFilters, AuthUser } from "./types.js";

type Handler = (parameter: Record<string, unknown>) => unknown;

/** The parts of an `Auth` object (from `@langchain/langgraph-sdk/auth`) the server calls. */
export interface AuthHandlers {
  authenticate?: (request: Request) => unknown;
  callbacks?: Record<string, Handler>;
}

/** An error a handler threw on purpose (the SDK's HTTPException), or a refusal. */
export class AuthError extends DomainError {}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" && status >= 400 && status < 600 ? status : undefined;
}

/**
 * A project's custom auth: `authenticate` turns a request into a user; `on(...)` handlers allow,
 * deny (false → 403) or scope (filters) each event, looked up from the most specific key
 * (`threads:read`, then `threads`, then `*:read`, then `*`).
 */
export class CustomAuth {
  constructor(private readonly handlers: AuthHandlers) {}

  /** The request's user; 401 (or the handler's own status) when it is refused. */
  async authenticate(request: Request): Promise<AuthUser> {
    if (!this.handlers.authenticate) {
      return { identity: "", display_name: "", is_authenticated: false, permissions: [] };
    }
    let result: unknown;
    try {
      result = await this.handlers.authenticate(request);
    } catch (error) {
      throw new AuthError((error as Error).message || "Unauthorized", statusOf(error) ?? 401);
    }
    if (typeof result === "string") {
      return { identity: result, display_name: result, is_authenticated: true, permissions: [] };
    }
    if (
      result === null ||
      typeof result !== "object" ||
      typeof (result as { identity?: unknown }).identity !== "string"
    ) {
      throw new AuthError("The authenticate handler returned no identity", 401);
    }
    const user = result as Record<string, unknown> & { identity: string };
    return {
      ...user,
      identity: user.identity,
      display_name: typeof user.display_name === "string" ? user.display_name : user.identity,
      is_authenticated: user.is_authenticated !== false,
      permissions: Array.isArray(user.permissions) ? user.permissions.map(String) : [],
    };
  }

  /** Runs the event's handler on `value` (which it may change); returns filters, or null for none. */
  async authorize(event: AuthEvent, user: AuthUser, value: unknown): Promise<AuthFilters | null> {
    const [resource, action] = event.split(":") as [string, string];
    const callbacks = this.handlers.callbacks ?? {};
    const handler = callbacks[event] ?? callbacks[resource] ?? callbacks[`*:${action}`] ?? callbacks["*"];
    if (!handler) return null;
    let result: unknown;
    try {
      result = await handler({ event, resource, action, value, user, permissions: user.permissions });
    } catch (error) {
      throw new AuthError((error as Error).message || "Forbidden", statusOf(error) ?? 403);
    }
    if (result === false) throw new AuthError("Forbidden", 403);
    if (result === null || result === undefined || result === true) return null;
    if (typeof result !== "object" || Array.isArray(result)) return null;
    return result as AuthFilters;
  }
}
