import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import type { Logger } from "pino";
import type { CustomAuth } from "./auth/custom-auth.js";
import type { AgentServerConfig } from "./config.js";
import { registerCustomAuth } from "./http/auth.js";
import { registerErrorHandling, registerJsonParsing } from "./http/errors.js";
import { assistantRoutes } from "./http/routes/assistants.js";
import { cronRoutes } from "./http/routes/crons.js";
import { runStreamRoutes } from "./http/routes/run-streams.js";
import { runRoutes } from "./http/routes/runs.js";
import { storeRoutes } from "./http/routes/store.js";
import { systemRoutes } from "./http/routes/system.js";
import { threadRoutes } from "./http/routes/threads.js";
import type { AgentServerMetrics, QueueProbe } from "./metrics/registry.js";
import type { RunSignals } from "./queue/types.js";
import type { AssistantService } from "./services/assistants.js";
import type { CronService } from "./services/crons.js";
import type { RunService } from "./services/runs.js";
import type { StoreService } from "./services/store.js";
import type { ThreadStateService } from "./services/thread-state.js";
import type { ThreadService } from "./services/threads.js";
import type { ThreadStore } from "./storage/types.js";
import type { StreamBroker } from "./stream/types.js";

/** The services and facts the HTTP app is built from. */
export interface AppDeps {
  config: AgentServerConfig;
  logger: Logger;
  assistants: AssistantService;
  threads: ThreadService;
  threadState: ThreadStateService;
  runs: RunService;
  store: StoreService;
  crons: CronService;
  broker: StreamBroker;
  signals: RunSignals;
  info: { version: string; langgraphVersion: string };
  metrics: AgentServerMetrics;
  queueProbe: QueueProbe;
  /** The project's custom auth (graph.json `auth.path`), if it has one. */
  customAuth?: CustomAuth | undefined;
  threadStore: ThreadStore;
}

/** Builds the agent server's Fastify app (no listening: the composition root does that). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.config.bodyLimitBytes,
    // Slow clients may not hold connections forever.
    requestTimeout: 0,
    connectionTimeout: 0,
    keepAliveTimeout: 65_000,
    return503OnClosing: true,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerJsonParsing(app);
  registerErrorHandling(app);
  if (deps.customAuth) {
    registerCustomAuth(app, deps.customAuth, { threads: deps.threadStore, assistants: deps.assistants });
  }
  app.addHook("onSend", async (_request, reply) => {
    reply.header("access-control-expose-headers", "content-location, x-pagination-total");
  });
  await app.register(systemRoutes(deps.info, deps.metrics, deps.queueProbe));
  await app.register(assistantRoutes(deps.assistants));
  await app.register(threadRoutes(deps.threads, deps.threadState));
  await app.register(runRoutes(deps.runs));
  await app.register(storeRoutes(deps.store));
  await app.register(cronRoutes(deps.crons));
  await app.register(
    runStreamRoutes({
      runs: deps.runs,
      broker: deps.broker,
      signals: deps.signals,
      heartbeatMs: deps.config.streamHeartbeatMs,
      waitKeepAliveMs: deps.config.waitKeepAliveMs,
    }),
  );
  return app;
}
