import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { AgentServerMetrics, QueueProbe } from "../../metrics/registry.js";

/** `/ok`, `/info` and `/metrics`. */
export function systemRoutes(
  info: {
    version: string;
    langgraphVersion: string;
    graphFailures: Record<string, string>;
    tracing?: boolean;
  },
  metrics: AgentServerMetrics,
  probe: QueueProbe,
  /** `http.disable_meta`: only `/ok` (health checks need it) is served. */
  disableMeta = false,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.get("/ok", async () => ({ ok: true }));
    if (disableMeta) return;
    app.get(
      "/metrics",
      { schema: { querystring: z.object({ format: z.enum(["prometheus", "json"]).default("prometheus") }) } },
      async (request, reply) => {
        if (request.query.format === "json") {
          const running = probe.runningRuns();
          return {
            queue: { n_pending: await probe.pendingRuns(), n_running: running },
            workers: { active: running, available: probe.capacity() - running, max: probe.capacity() },
          };
        }
        return reply.type(metrics.registry.contentType).send(await metrics.render());
      },
    );
    app.get("/info", async () => ({
      version: info.version,
      langgraph_js_version: info.langgraphVersion,
      context: "js",
      flags: {
        assistants: true,
        // Crons are served (routes/crons.ts): Studio shows its cron tools by this flag.
        crons: true,
        langsmith: info.tracing === true,
        langsmith_tracing_replicas: false,
      },
      metadata: { implementation: "berth" },
      // Berth's addition: graphs of the project that did not load, with the reason.
      ...(Object.keys(info.graphFailures).length > 0 ? { graph_load_errors: info.graphFailures } : {}),
    }));
  };
}
