import type { FastifyInstance, FastifyRequest } from "fastify";
import type { AuthService } from "../services/auth.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The tenant the request acts for, set by the auth hook of the API routes. */
    tenantId: string;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Requires a valid credential on every route of `app` (X-Api-Key, or Authorization: Bearer). */
export function requireTenant(app: FastifyInstance, auth: AuthService): void {
  app.decorateRequest("tenantId", "");
  app.addHook("onRequest", async (request) => {
    request.tenantId = await auth.authenticate({
      apiKey: header(request, "x-api-key"),
      authorization: header(request, "authorization"),
      tenantId: header(request, "x-tenant-id"),
    });
  });
}
