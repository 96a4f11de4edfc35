import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";

/** `/ok` and `/info`. */
export function systemRoutes(info: { version: string; langgraphVersion: string }): FastifyPluginAsyncZod {
  return async (app) => {
    app.get("/ok", async () => ({ ok: true }));
    app.get("/info", async () => ({
      version: info.version,
      langgraph_js_version: info.langgraphVersion,
      context: "js",
      flags: { assistants: true, crons: false, langsmith: false, langsmith_tracing_replicas: false },
      metadata: { implementation: "berth" },
    }));
  };
}
