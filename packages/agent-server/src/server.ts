import { createRequire } from "node:module";
import { listenWithFallback, waitForDataDirLock } from "@berth/server-kit";
import type { FastifyInstance } from "fastify";
import pino, { type Logger } from "pino";
import { register as registerTsx } from "tsx/esm/api";
import { buildApp } from "./app.js";
import { loadCustomAuth } from "./auth/load.js";
import type { AgentServerConfig } from "./config.js";
import { readGraphProject, readProjectEnv } from "./graphs/project.js";
import { GraphRegistry } from "./graphs/registry.js";
import { AgentServerMetrics } from "./metrics/registry.js";
import { CronScheduler } from "./queue/cron-scheduler.js";
import { RunQueue } from "./queue/pool.js";
import { MemoryRunSignals } from "./queue/signals-memory.js";
import { processRun } from "./queue/worker.js";
import { AssistantService } from "./services/assistants.js";
import { CronService } from "./services/crons.js";
import { RunService } from "./services/runs.js";
import { StoreService } from "./services/store.js";
import { ThreadStateService } from "./services/thread-state.js";
import { ThreadService } from "./services/threads.js";
import { ItemStoreAdapter } from "./storage/langgraph-store.js";
import { openSqliteBackend } from "./storage/sqlite/index.js";
import { MemoryStreamBroker } from "./stream/memory.js";
import { AGENT_SERVER_VERSION } from "./version.js";
import { AddressPolicy } from "./webhooks/address-policy.js";
import { WebhookSender } from "./webhooks/sender.js";

/** A started agent server. */
export interface AgentServer {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly graphIds: string[];
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
  const project = readGraphProject(config.graphConfigPath);
  for (const [key, value] of Object.entries(readProjectEnv(project))) {
    if (options.processEnv[key] === undefined) options.processEnv[key] = value;
  }
  // User graphs are TypeScript as often as not; the hook stays for the process (modules stay loaded).
  const unregisterTsx = registerTsx();
  // Hand-over: the data directory is shared with the process being replaced until it exits.
  const backend = await openSqliteBackend(config.dataDir, { lock: !config.waitForLock });
  const cleanups: Array<() => Promise<void> | void> = [() => backend.storage.close(), unregisterTsx];
  try {
    const registry = new GraphRegistry(backend.checkpointer, new ItemStoreAdapter(backend.storage.items));
    await registry.loadAll(project.graphs);
    await backend.storage.assistants.upsertSystem(registry.systemAssistants(new Date().toISOString()));

    const signals = new MemoryRunSignals();
    const webhookPolicy = new AddressPolicy(config.webhookAllowPrivate);
    const webhooks = new WebhookSender(
      webhookPolicy,
      {
        timeoutMs: config.webhookTimeoutMs,
        maxAttempts: config.webhookMaxAttempts,
        retryBaseMs: config.webhookRetryBaseMs,
      },
      logger,
    );
    const broker = new MemoryStreamBroker({ ttlMs: config.resumableStreamTtlMs, maxEvents: 10_000 });
    cleanups.push(() => broker.close());
    const assistants = new AssistantService(backend.storage.assistants, registry);
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
    });
    const store = new StoreService(backend.storage.items);
    cleanups.unshift(store.startSweeper(config.storeSweepMs, logger));
    const scheduler = new CronScheduler({ crons: backend.storage.crons, runs, logger });
    const crons = new CronService(backend.storage.crons, assistants, () => scheduler.wake());
    const langgraphVersion = readPackageVersion("@langchain/langgraph/package.json");
    const customAuth = project.authPath
      ? await loadCustomAuth(project.configPath, project.projectDir, project.authPath)
      : undefined;
    // The queue is made once the URL is known (runs see it); the probe reads it when scraped.
    let queue: RunQueue | undefined;
    const queueProbe = {
      pendingRuns: () => backend.storage.runs.countPending(),
      runningRuns: () => queue?.running ?? 0,
      capacity: () => config.jobsPerWorker,
    };
    const metrics = new AgentServerMetrics(queueProbe);
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
      info: { version: AGENT_SERVER_VERSION, langgraphVersion },
      metrics,
      queueProbe,
      customAuth,
      threadStore: backend.storage.threads,
    });
    const url = await listenWithFallback(app, { ...config, onPortMoved: options.onPortMoved });
    cleanups.unshift(() => app.close());

    const env = { serverVersion: AGENT_SERVER_VERSION, langgraphVersion, apiUrl: url };
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
    };
    queue = new RunQueue({
      runs: backend.storage.runs,
      signals,
      config,
      logger,
      execute: (claim, controller) => processRun(claim, workerDeps, controller),
    });
    const runQueue = queue;
    // HTTP stops first, then the queue drains, then storage closes.
    cleanups.splice(
      1,
      0,
      () => runQueue.stop(config.shutdownGraceMs),
      () => webhooks.drain(config.webhookTimeoutMs),
    );
    // Crons fire once the queue runs; they stop before it drains (with HTTP) so nothing new is queued.
    cleanups.splice(1, 0, () => scheduler.stop());
    const startWork = async () => {
      await runQueue.start();
      scheduler.start();
    };
    if (config.waitForLock) {
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
