import { createRequire } from "node:module";
import path from "node:path";
import v8 from "node:v8";
import { listenWithFallback, waitForDataDirLock } from "@berth-platform/server-kit";
import type { FastifyInstance } from "fastify";
import pino, { type Logger } from "pino";
import { register as registerTsxCjs } from "tsx/cjs/api";
import { register as registerTsx } from "tsx/esm/api";
import { buildApp } from "./app.js";
import { loadCustomAuth } from "./auth/load.js";
import { type AgentServerConfig, parseGraphAssistantConfigs } from "./config.js";
import { WireJson } from "./domain/wire-json.js";
import { EventLoopTurns } from "./execution/event-loop-turns.js";
import { poolRandomValues } from "./execution/random-pool.js";
import { readGraphProject, readProjectEnv } from "./graphs/project.js";
import { GraphRegistry } from "./graphs/registry.js";
import { DiskSchemaCache, projectSchemaDir } from "./graphs/schema-cache.js";
import { GraphSchemaReader } from "./graphs/schemas.js";
import { projectWarnings } from "./graphs/spec.js";
import { isParseTimeout, officialParserVersion, officialStaticSchemas } from "./graphs/static-schemas.js";
import { HttpDrain } from "./http/drain.js";
import { Loopback } from "./http/loopback.js";
import { loadProjectApp } from "./http/project-app.js";
import { uiRoutes } from "./http/routes/ui.js";
import { openInfrastructure } from "./infrastructure.js";
import { AgentServerMetrics } from "./metrics/registry.js";
import { CronScheduler } from "./queue/cron-scheduler.js";
import { RunQueue } from "./queue/pool.js";
import { processRun } from "./queue/worker.js";
import { AssistantService } from "./services/assistants.js";
import { CronService } from "./services/crons.js";
import { RunService } from "./services/runs.js";
import { StoreService } from "./services/store.js";
import { ThreadStateService } from "./services/thread-state.js";
import { ThreadService } from "./services/threads.js";
import { ItemStoreAdapter } from "./storage/langgraph-store.js";
import { createRunTracer } from "./tracing/run-tracer.js";
import { chooseTracer } from "./tracing/settings.js";
import { bundleProjectUi } from "./ui/bundle.js";
import { AGENT_SERVER_VERSION } from "./version.js";
import { AddressPolicy } from "./webhooks/address-policy.js";
import { WebhookSender } from "./webhooks/sender.js";

/** A started agent server. */
export interface AgentServer {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly graphIds: string[];
  /** Graphs of the project that did not load, with their reasons (the others are served). */
  readonly graphFailures: Record<string, string>;
  /** Stops HTTP, drains the queue (runs still going after the grace period go back to the queue), closes storage. */
  close(): Promise<void>;
}

/** Options the embedding program decides (the CLI, tests). */
export interface StartOptions {
  logger?: Logger;
  /** Process environment to extend with the project's `env` (keys already set win). */
  processEnv: Record<string, string | undefined>;
  /** Called when the configured default port was taken and another one is used. */
  onPortMoved?: (from: number, to: number) => void;
}

/** The composition root: wires storage, graphs, queue and HTTP from one parsed config. */
export async function startAgentServer(
  config: AgentServerConfig,
  options: StartOptions,
): Promise<AgentServer> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  // V8 reads this flag whenever it sets the next full-GC limit, so setting it now takes effect.
  if (config.heapGrowingPercent > 0) {
    v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);
  }
  // Graph libraries draw a UUID per runnable through crypto.getRandomValues (execution/random-pool.ts).
  const unpoolRandomValues = poolRandomValues();
  const project = readGraphProject(config.graphConfigPath);
  // Keys Berth does not act on are said out loud rather than silently ignored (issue 10).
  for (const warning of projectWarnings(project, process.versions.node)) logger.warn(warning);
  const projectEnv = readProjectEnv(project);
  // LANGGRAPH_CONFIG (the system assistants' config and context) may come from graph.json `env`, as
  // in the official server's own test project; one set in the process environment wins, as any key.
  const graphAssistantConfigs =
    options.processEnv.LANGGRAPH_CONFIG === undefined && projectEnv.LANGGRAPH_CONFIG !== undefined
      ? parseGraphAssistantConfigs(projectEnv.LANGGRAPH_CONFIG)
      : config.graphAssistantConfigs;
  for (const [key, value] of Object.entries(projectEnv)) {
    if (options.processEnv[key] === undefined) options.processEnv[key] = value;
  }
  // User graphs are TypeScript as often as not; the hook stays for the process (modules stay loaded).
  const unregisterTsx = registerTsx();
  // Projects whose package.json says "type": "commonjs" (what `npm init -y` writes) load their
  // TypeScript through require(): without tsx's CJS hook, ES-module syntax there fails with
  // ERR_REQUIRE_CYCLE_MODULE (issue 10). The official server loads them; so does Berth.
  const unregisterTsxCjs = registerTsxCjs();
  // Hand-over: the data directory is shared with the process being replaced until it exits.
  // The queue is made once the URL is known (runs see it); probes read it when asked.
  let queue: RunQueue | undefined;
  const infrastructure = await openInfrastructure(config, logger, {
    hasQueueCapacity: () => queue?.hasCapacity() ?? false,
  });
  const { backend, signals, broker } = infrastructure;
  const cleanups: Array<() => Promise<void> | void> = [
    () => infrastructure.close(),
    unregisterTsx,
    unregisterTsxCjs,
    unpoolRandomValues,
  ];
  const executesRuns = config.role !== "api";
  try {
    // Graphs may call getLogger() from @langchain/langgraph-sdk/logging as they load or run: the
    // official server registers its logger under this global symbol first; so does Berth.
    (globalThis as Record<symbol, unknown>)[Symbol.for("langgraph.api.sdk-logger")] = logger.child({
      component: "graph",
    });
    const registry = new GraphRegistry(backend.checkpointer, new ItemStoreAdapter(backend.storage.items));
    await registry.loadAll(project.graphs);
    if (registry.graphIds.length === 0 && project.graphs.length > 0) {
      // Nothing to serve: failing the start says so louder than a server with no graphs.
      throw new Error(Object.values(registry.loadFailures).join("\n"));
    }
    for (const [graphId, reason] of Object.entries(registry.loadFailures)) {
      logger.error(
        { graph_id: graphId, reason },
        `graph ${graphId} did not load; the other graphs are served`,
      );
    }
    await backend.storage.assistants.upsertSystem(
      registry.systemAssistants(new Date().toISOString(), graphAssistantConfigs),
    );

    // Requests the server sends itself (SDK clients in graph code, webhooks naming a path); bound
    // to the address once it listens.
    const loopback = new Loopback(config.agentToken);
    const webhookPolicy = new AddressPolicy(config.webhookAllowPrivate);
    const webhooks = new WebhookSender(
      webhookPolicy,
      {
        timeoutMs: config.webhookTimeoutMs,
        maxAttempts: config.webhookMaxAttempts,
        retryBaseMs: config.webhookRetryBaseMs,
      },
      logger,
      loopback.fetch,
    );
    const schemaReader = new GraphSchemaReader(
      officialStaticSchemas(config.schemaTimeoutMs),
      new DiskSchemaCache(
        path.join(config.dataDir, "schemas"),
        projectSchemaDir(project.projectDir),
        project.projectDir,
        officialParserVersion(),
        (error) => logger.warn({ err: error }, "the schema cache could not be read or written"),
      ),
      isParseTimeout,
      (graphId, reason) =>
        logger.warn({ graph_id: graphId, reason }, `could not read the TypeScript types of graph ${graphId}`),
    );
    const assistants = new AssistantService(backend.storage.assistants, registry, schemaReader);
    const threads = new ThreadService(
      backend.storage.threads,
      backend.storage.runs,
      backend.checkpoints,
      signals,
    );
    const threadState = new ThreadStateService(backend.storage.threads, registry);
    const runs = new RunService({
      runs: backend.storage.runs,
      threads: backend.storage.threads,
      assistants,
      registry,
      signals,
      broker,
      webhookPolicy,
      // A run that can start at once is claimed by its own create transaction in this process.
      reserveSlot: executesRuns ? () => queue?.reserveSlot() : undefined,
      threadOfRunning: executesRuns ? (runId) => queue?.threadOfRunning(runId) : undefined,
    });
    const store = new StoreService(backend.storage.items);
    if (executesRuns) cleanups.unshift(store.startSweeper(config.storeSweepMs, logger));
    const scheduler = new CronScheduler({ crons: backend.storage.crons, runs, logger });
    const crons = new CronService(backend.storage.crons, assistants, () => scheduler.wake());
    const langgraphVersion = readPackageVersion("@langchain/langgraph/package.json");
    const customAuth = project.authPath
      ? await loadCustomAuth(project.configPath, project.projectDir, project.authPath)
      : undefined;
    const queueProbe = {
      pendingRuns: () => backend.storage.runs.countPending(),
      runningRuns: () => queue?.running ?? 0,
      capacity: () => config.jobsPerWorker,
    };
    const metrics = new AgentServerMetrics(queueProbe);
    const drain = new HttpDrain();
    const app = await buildApp({
      config,
      logger,
      assistants,
      threads,
      threadState,
      runs,
      store,
      crons,
      broker,
      signals,
      info: {
        version: AGENT_SERVER_VERSION,
        langgraphVersion,
        graphFailures: registry.loadFailures,
        tracing: config.tracing,
      },
      metrics,
      queueProbe,
      customAuth,
      cors: project.cors,
      uiRoutes:
        Object.keys(project.ui).length > 0
          ? uiRoutes(
              await bundleProjectUi(project.projectDir, project.ui, project.uiShared, (name, error) =>
                logger.error({ ui: name, err: error }, `UI ${name} did not bundle; the others are served`),
              ),
            )
          : undefined,
      projectHttp: {
        app: project.http.app ? await loadProjectApp(project.http.app) : null,
        disabled: project.http.disabled,
        headers: project.http.headers,
      },
      threadStore: backend.storage.threads,
      drain,
    });
    const url = await listenWithFallback(app, { ...config, onPortMoved: options.onPortMoved });
    loopback.bind(url);
    // `new Client()` with no apiUrl in graph code or the project's routes reaches this server, as on
    // the official server; code that reads LANGGRAPH_API_URL finds it too (unless it was set).
    cleanups.push(loopback.installSdkDefaults());
    options.processEnv.LANGGRAPH_API_URL ??= loopback.url;
    // Schemas ready before anyone asks (LangGraph Studio's first call when it opens a graph): the
    // TypeScript types are parsed now, in the parser's worker thread, unless the cache has them. In
    // a cluster one child parses; the others find the result in the cache (or share nothing and
    // parse on a request that comes first).
    if (config.schemaWarmup && (config.cluster?.index ?? 0) === 0) {
      const started = Date.now();
      void schemaReader
        .warm(registry.loadedSpecs, (graphId) => registry.loadedGraph(graphId))
        .then(() => logger.debug({ ms: Date.now() - started }, "graph schemas ready"));
    }
    // After the runs (at the latest at the grace deadline): streams, joins and waits still open
    // get a moment to end by themselves, then are ended, so closing is quick.
    cleanups.unshift(() => drain.close(app, 1_000));

    const env = { serverVersion: AGENT_SERVER_VERSION, langgraphVersion, apiUrl: config.publicUrl ?? url };
    // Chosen from the environment graphs run in (graph.json `env` merged above), once.
    const tracerChoice = chooseTracer(options.processEnv);
    const tracer = createRunTracer(tracerChoice, logger);
    if (tracerChoice.kind === "sdk")
      logger.info(`runs are traced by LangChain's tracer (${tracerChoice.reason})`);
    else if (tracerChoice.kind === "lean")
      logger.info(
        { endpoint: tracerChoice.settings.endpoint, project: tracerChoice.settings.project },
        "runs are traced by the agent server's tracer",
      );
    const workerDeps = {
      ...backend,
      runs: backend.storage.runs,
      threads: backend.storage.threads,
      registry,
      signals,
      broker,
      config,
      env,
      logger,
      webhooks,
      metrics,
      turns: new EventLoopTurns(),
      traceCallbacks: tracer.callbacks,
      wire: new WireJson(),
    };
    queue = new RunQueue({
      owner: config.cluster?.owner,
      runs: backend.storage.runs,
      signals,
      config,
      logger,
      execute: (claim, controller, next) => processRun(claim, workerDeps, controller, next),
      onRunsFailed: (runIds) => {
        for (const runId of runIds) {
          broker.end(runId);
          signals.runEnded(runId, { status: "error" });
        }
      },
    });
    const runQueue = queue;
    // The drain: at once, new requests get 503 and nothing more is claimed (crons stop firing);
    // running runs get the grace period, then go back to the queue; then HTTP closes (open
    // responses ended), webhooks drain, storage closes.
    cleanups.unshift(
      async () => {
        drain.begin();
        runQueue.stopClaiming();
        await scheduler.stop();
      },
      () => runQueue.stop(config.shutdownGraceMs),
      // Traces of the runs that just ended (or were handed back) before the process goes.
      () => tracer.drain(5_000),
    );
    cleanups.splice(4, 0, () => webhooks.drain(config.webhookTimeoutMs));
    const startWork = async () => {
      // On a shared database other workers are alive: only expired leases are orphans.
      await runQueue.start({ recoverAllForeign: !backend.shared });
      scheduler.start();
    };
    if (!executesRuns) {
      logger.info("api role: runs are executed by the worker processes");
    } else if (config.waitForLock && !backend.shared) {
      // Serve now (runs created meanwhile wait in the queue); recover and execute runs once the
      // previous process has let go of the data directory.
      const abort = new AbortController();
      const handover = (async () => {
        const lock = await waitForDataDirLock(config.dataDir, { signal: abort.signal });
        cleanups.push(() => lock.release());
        logger.info("data directory acquired; starting the run queue");
        await startWork();
      })().catch((error: unknown) => {
        if (!abort.signal.aborted) logger.error({ err: error }, "could not take over the data directory");
      });
      cleanups.unshift(async () => {
        abort.abort();
        await handover;
      });
    } else {
      await startWork();
    }

    let closing: Promise<void> | undefined;
    return {
      url,
      app,
      graphIds: registry.graphIds,
      graphFailures: registry.loadFailures,
      close() {
        closing ??= runCleanups(cleanups);
        return closing;
      },
    };
  } catch (error) {
    await runCleanups(cleanups);
    throw error;
  }
}

async function runCleanups(cleanups: Array<() => Promise<void> | void>): Promise<void> {
  for (const cleanup of cleanups) await cleanup();
}

function readPackageVersion(specifier: string): string {
  try {
    return (createRequire(import.meta.url)(specifier) as { version: string }).version;
  } catch {
    return "unknown";
  }
}
