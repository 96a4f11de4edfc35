import { serviceApp } from "@berth-platform/server-kit";
import fastifyCors from "@fastify/cors";
import type { FastifyBaseLogger, FastifyInstance, FastifyPluginAsync } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import type { Logger } from "pino";
import type { CustomAuth } from "./auth/custom-auth.js";
import type { AgentServerConfig } from "./config.js";
import { registerAgentToken } from "./http/agent-token.js";
import { registerCustomAuth } from "./http/auth.js";
import { corsPluginOptions, type HttpCorsConfig } from "./http/cors.js";
import type { HttpDrain } from "./http/drain.js";
import { registerErrorHandling, registerJsonParsing } from "./http/errors.js";
import { type HonoLike, registerProjectApp } from "./http/project-app.js";
import type { DisabledRoutes, HeaderPolicy } from "./http/project-http.js";
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
  info: {
    version: string;
    langgraphVersion: string;
    graphFailures: Record<string, string>;
    tracing?: boolean;
  };
  metrics: AgentServerMetrics;
  queueProbe: QueueProbe;
  /** The project's custom auth (graph.json `auth.path`), if it has one. */
  customAuth?: CustomAuth | undefined;
  /** The project's `http.cors` (null: every origin allowed, the official default). */
  cors: HttpCorsConfig | null;
  threadStore: ThreadStore;
  /** Shutdown of the HTTP side: 503 for new requests, open responses ended at the deadline. */
  drain: HttpDrain;
  /** The project's `http` block: its own app, disabled route groups, configurable headers. */
  projectHttp?: { app: HonoLike | null; disabled: DisabledRoutes; headers: HeaderPolicy | null };
  /** Routes serving the project's generative UI (`ui`), if it has any. */
  uiRoutes?: FastifyPluginAsync | undefined;
}

/** Builds the agent server's Fastify app (no listening: the composition root does that). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = serviceApp({
    logger: deps.logger as FastifyBaseLogger,
    bodyLimitBytes: deps.config.bodyLimitBytes,
    requestTimeoutMs: deps.config.requestTimeoutMs,
    maxConnections: deps.config.maxConnections,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerJsonParsing(app);
  registerErrorHandling(app);
  deps.drain.register(app);
  const cluster = deps.config.cluster;
  if (cluster) {
    // Which process of the embedded cluster answered (operators reading logs, tests of cross-process paths).
    const worker = String(cluster.index);
    app.addHook("onRequest", (_request, reply, done) => {
      reply.header("x-berth-worker", worker);
      done();
    });
  }
  // Before the auth hooks: a browser's preflight carries no credentials and must still be answered.
  await app.register(fastifyCors, corsPluginOptions(deps.cors));
  if (deps.config.agentToken) registerAgentToken(app, deps.config.agentToken);
  if (deps.customAuth) {
    registerCustomAuth(app, deps.customAuth, { threads: deps.threadStore, assistants: deps.assistants });
  }
  app.decorate("configurableHeaderPolicy", deps.projectHttp?.headers ?? null);
  // The project's own app goes in front of the core routes (after CORS, the agent token and auth).
  if (deps.projectHttp?.app) registerProjectApp(app, deps.projectHttp.app, deps.config.bodyLimitBytes);
  const off = deps.projectHttp?.disabled;
  await app.register(systemRoutes(deps.info, deps.metrics, deps.queueProbe, off?.meta));
  if (!off?.assistants) await app.register(assistantRoutes(deps.assistants, deps.threads));
  if (!off?.threads) await app.register(threadRoutes(deps.threads, deps.threadState));
  if (!off?.store) await app.register(storeRoutes(deps.store));
  if (!off?.runs) {
    await app.register(runRoutes(deps.runs));
    await app.register(cronRoutes(deps.crons));
    await app.register(
      runStreamRoutes({
        runs: deps.runs,
        broker: deps.broker,
        signals: deps.signals,
        heartbeatMs: deps.config.streamHeartbeatMs,
        waitKeepAliveMs: deps.config.waitKeepAliveMs,
        draining: () => deps.drain.draining,
      }),
    );
  }
  if (deps.uiRoutes && !off?.ui) await app.register(deps.uiRoutes);
  return app;
}
