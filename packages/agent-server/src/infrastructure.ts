import path from "node:path";
import type { Logger } from "pino";
import { processHubChannel } from "./cluster/hub-link.js";
import { RelayStreamBroker } from "./cluster/relay-broker.js";
import { RelayRunSignals } from "./cluster/relay-signals.js";
import type { AgentServerConfig } from "./config.js";
import { MemoryRunSignals } from "./queue/signals-memory.js";
import { RedisRunSignals } from "./queue/signals-redis.js";
import type { RunSignals } from "./queue/types.js";
import { closeRedis, connectRedis } from "./redis/connection.js";
import { openPostgresBackend } from "./storage/postgres/index.js";
import { openSqliteBackend } from "./storage/sqlite/index.js";
import type { StorageBackend } from "./storage/types.js";
import { MemoryStreamBroker } from "./stream/memory.js";
import { RedisStreamBroker } from "./stream/redis.js";
import { SqliteRunEventLog } from "./stream/sqlite-log.js";
import type { StreamBroker } from "./stream/types.js";

/** Storage, signals and stream broker for one process, chosen by the config. */
export interface Infrastructure {
  backend: StorageBackend;
  signals: RunSignals;
  broker: StreamBroker;
  /** Closes what was opened, storage last. */
  close(): Promise<void>;
}

/**
 * Opens the adapters the config names: SQLite files (locked unless `waitForLock` or shared) or PostgreSQL;
 * in-process signals and streams, or Redis ones shared with the other processes.
 */
export async function openInfrastructure(
  config: AgentServerConfig,
  logger: Logger,
  hooks: { hasQueueCapacity: () => boolean } = { hasQueueCapacity: () => true },
): Promise<Infrastructure> {
  if (config.cluster) {
    // A child of the embedded cluster: the primary holds the lock and is the hub between children.
    const backend = await openSqliteBackend(config.dataDir, { lock: false, shared: true });
    const hub = processHubChannel();
    const signals = new RelayRunSignals(hub, hooks.hasQueueCapacity);
    const broker = new RelayStreamBroker(hub, { ttlMs: config.resumableStreamTtlMs, maxEvents: 10_000 });
    return {
      backend,
      signals,
      broker,
      async close() {
        broker.close();
        signals.close();
        await backend.storage.close();
      },
    };
  }
  const backend = config.databaseUrl
    ? await openPostgresBackend(config.databaseUrl, {
        schema: config.databaseSchema ?? undefined,
        poolSize: config.databasePoolSize,
        // Message and code only: the error carries the client, whose parameters may hold a password.
        onError: (error) =>
          logger.warn(
            { error: error.message, code: (error as { code?: unknown }).code },
            "PostgreSQL connection lost; the pool reconnects",
          ),
      })
    : await openSqliteBackend(config.dataDir, {
        lock: !config.waitForLock,
        shared: config.sharedDataDir,
        onCheckpointError: (message) => logger.warn({ error: message }, "background WAL checkpoint failed"),
      });
  if (!config.redisUrl) {
    // One process on its own SQLite files: resumable runs' events are kept in a file next to
    // them, so a resume after a crash finds them (issue 27 item 8). PostgreSQL without Redis
    // is one process too, but its data dir may not be kept: events stay in memory there.
    const log =
      config.databaseUrl || config.sharedDataDir
        ? undefined
        : new SqliteRunEventLog(path.join(config.dataDir, "stream-events.sqlite"));
    const broker = new MemoryStreamBroker({ ttlMs: config.resumableStreamTtlMs, maxEvents: 10_000, log });
    return {
      backend,
      signals: new MemoryRunSignals(),
      broker,
      async close() {
        broker.close();
        log?.close();
        await backend.storage.close();
      },
    };
  }
  const pub = connectRedis(config.redisUrl, "berth-agent-server", logger);
  const sub = connectRedis(config.redisUrl, "berth-agent-server-sub", logger);
  const signals = new RedisRunSignals(pub, sub, config.redisKeyPrefix, logger);
  const broker = new RedisStreamBroker(pub, sub, {
    prefix: config.redisKeyPrefix,
    ttlMs: config.resumableStreamTtlMs,
    runTtlMs: config.runTimeoutMs + config.resumableStreamTtlMs,
    maxEvents: 10_000,
    logger,
  });
  const close = async () => {
    broker.close();
    await Promise.all([closeRedis(pub), closeRedis(sub)]);
    await backend.storage.close();
  };
  try {
    await signals.start();
  } catch (error) {
    await close();
    throw error;
  }
  return { backend, signals, broker, close };
}
