import type { FastifyInstance } from "fastify";

/** Public routes: health and the OpenAPI document (its interactive reference is /docs). */
export async function systemRoutes(app: FastifyInstance): Promise<void> {
  app.get("/ok", { schema: { hide: true } }, async () => ({ ok: true }));
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
