import type { FastifyInstance, FastifyRequest } from "fastify";
import type { AuthService, Principal } from "../services/auth.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The tenant the request acts for, set by the auth hook of the API routes. */
    tenantId: string;
    /** The key behind the request, set by the auth hooks. */
    principal: Principal;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function credentials(request: FastifyRequest) {
  return {
    apiKey: header(request, "x-api-key"),
    authorization: header(request, "authorization"),
    tenantId: header(request, "x-tenant-id"),
  };
}

/** Requires a valid credential on every route of `app` (X-Api-Key, or Authorization: Bearer). */
export function requireTenant(app: FastifyInstance, auth: AuthService): void {
  app.decorateRequest("tenantId", "");
  app.decorateRequest("principal", null as unknown as Principal);
  app.addHook("onRequest", async (request) => {
    const { principal, tenantId } = await auth.authenticatePrincipal(credentials(request));
    request.principal = principal;
    request.tenantId = tenantId;
  });
}

/**
 * Requires a valid credential but no workspace choice: for routes that act across the key's
 * workspaces (listing them), which a key of several workspaces must reach without X-Tenant-Id.
 */
export function requirePrincipal(app: FastifyInstance, auth: AuthService): void {
  app.decorateRequest("principal", null as unknown as Principal);
  app.addHook("onRequest", async (request) => {
    request.principal = await auth.principal(credentials(request));
  });
}
