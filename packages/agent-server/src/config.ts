import os from "node:os";
import path from "node:path";

/** Everything the agent server needs to start, parsed once and frozen. */
export interface AgentServerConfig {
  readonly host: string;
  readonly port: number;
  /** Try the following ports when `port` is taken (the CLI's default port); false for an explicit port. */
  readonly portFallback: boolean;
  /** Absolute path of graph.json / langgraph.json. */
  readonly graphConfigPath: string;
  /** Absolute path of the directory holding the SQLite files. */
  readonly dataDir: string;
  /** Runs executed concurrently by this process. */
  readonly jobsPerWorker: number;
  /**
   * Serve HTTP while another process still holds the data directory, and start the queue once it
   * lets go (blue/green hand-over of a deployment's data between two revisions).
   */
  readonly waitForLock: boolean;
  /**
   * Other agent servers open the same SQLite data directory at once (BERTH_SHARED_DATA_DIR; the
   * local runtime's blue/green switch on Redis): no exclusive lock, crash recovery by lease
   * expiry only. Needs REDIS_URI, the only way signals and streams reach the other processes.
   */
  readonly sharedDataDir: boolean;
  /** How long a claimed run stays owned without a heartbeat. */
  readonly leaseMs: number;
  /** How often a running run renews its lease. */
  readonly heartbeatMs: number;
  /** How often expired leases are looked for. */
  readonly reaperIntervalMs: number;
  /** Attempts before a run whose worker died is failed for good. */
  readonly maxAttempts: number;
  /** Wall-clock limit of one run; it then ends in status `timeout`. */
  readonly runTimeoutMs: number;
  /** Largest accepted request body. */
  readonly bodyLimitBytes: number;
  /** How long shutdown waits for running runs before handing them back to the queue. */
  readonly shutdownGraceMs: number;
  /** Silence after which a stream gets a `: heartbeat` comment. */
  readonly streamHeartbeatMs: number;
  /** How long a resumable run's events stay replayable after it ends. */
  readonly resumableStreamTtlMs: number;
  /** Interval of the whitespace keep-alives a `/wait` response sends while the run goes on. */
  readonly waitKeepAliveMs: number;
  /**
   * `LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS`: how long reading the graphs' TypeScript types may take
   * (default 120 s, the official server's 30 s × 4: the parse runs in the background at start-up, so
   * the limit only stops a stuck parser; a loaded machine needed more than 30 s).
   */
  readonly schemaTimeoutMs: number;
  /**
   * `BERTH_SCHEMA_WARMUP` (default on): parse the graphs' TypeScript types in the background at
   * start-up, so `/schemas` never waits; off, the first request parses (the result is cached all
   * the same). Test servers turn it off unless the test is about it, as they keep one worker.
   */
  readonly schemaWarmup: boolean;
  /** How often expired store items are deleted (they are invisible from the moment they expire). */
  readonly storeSweepMs: number;
  /** Webhooks may target loopback and private addresses (tests, trusted networks). */
  readonly webhookAllowPrivate: boolean;
  readonly webhookTimeoutMs: number;
  readonly webhookMaxAttempts: number;
  readonly webhookRetryBaseMs: number;
  readonly logLevel: string;
  /** `LANGGRAPH_CONFIG`: per graph id, the system assistant's config (its `context` key goes to the context). */
  readonly graphAssistantConfigs: Readonly<Record<string, Record<string, unknown>>>;
  /**
   * The credential every request but `GET /ok` must carry in `x-berth-agent-token`
   * (BERTH_AGENT_TOKEN, set by the control plane's local runtime; only its proxy knows it). Null:
   * open, as `berth dev` is.
   */
  readonly agentToken: string | null;
  /** Time a client has to send a whole request (BERTH_REQUEST_TIMEOUT_SECS). */
  readonly requestTimeoutMs: number;
  /** Open connections at most (BERTH_MAX_CONNECTIONS). */
  readonly maxConnections: number;
  /**
   * What this process does: `api` serves HTTP only, `worker` executes queued runs (and crons),
   * `all` both (the embedded default). Separate roles need a shared database (DATABASE_URI).
   */
  readonly role: AgentServerRole;
  /** PostgreSQL URL (DATABASE_URI, --database-url); null: the embedded SQLite files in `dataDir`. */
  readonly databaseUrl: string | null;
  /** PostgreSQL schema for the tables (BERTH_DATABASE_SCHEMA); null: the connection's current schema. */
  readonly databaseSchema: string | null;
  /** PostgreSQL connections at most per process (BERTH_DATABASE_POOL_SIZE). */
  readonly databasePoolSize: number;
  /** Redis URL (REDIS_URI, --redis-url) for signals and streams between processes; null: in-process. */
  readonly redisUrl: string | null;
  /** Prefix of every Redis key and channel (REDIS_KEY_PREFIX), so deployments can share a Redis. */
  readonly redisKeyPrefix: string;
  /**
   * The URL clients reach this server at (LANGGRAPH_API_URL; a deployment's stable agent URL),
   * named in run metadata; null: the address it listens on.
   */
  readonly publicUrl: string | null;
  /** Runs are traced (LANGSMITH_TRACING / LANGCHAIN_TRACING_V2, read by LangChain itself): /info says so. */
  readonly tracing: boolean;
  /**
   * Server processes on the embedded SQLite files (--workers, BERTH_WORKERS; default the number of
   * cores for berth serve, 1 for berth dev): above 1, a primary process supervises that many
   * children sharing the port.
   */
  readonly workers: number;
  /**
   * V8's old-generation growing factor as a percentage (BERTH_HEAP_GROWING_PERCENT; V8's
   * --heap-growing-percent): after a full GC the heap may grow to live × (1 + p/100) before the next
   * one. 0 leaves V8's own heuristic (up to 4× the live heap). Default 50: see docs/decisions.md.
   */
  readonly heapGrowingPercent: number;
  /** Set in a child of the embedded cluster (never parsed from flags): its slot and queue owner id. */
  readonly cluster: ClusterChildRole | null;
}

/** What makes a process a child of the embedded cluster (see cluster/primary.ts). */
export interface ClusterChildRole {
  readonly index: number;
  /** The lease owner its run queue claims as: the primary recovers this owner's runs when it dies. */
  readonly owner: string;
}

/** The roles a process can take. */
export type AgentServerRole = "api" | "worker" | "all";

const ROLES: readonly AgentServerRole[] = ["api", "worker", "all"];

/** Raw inputs: CLI flags (already split by commander) and the process environment. */
export interface AgentServerConfigInput {
  flags: {
    host?: string | undefined;
    port?: string | number | undefined;
    config?: string | undefined;
    dataDir?: string | undefined;
    jobsPerWorker?: string | number | undefined;
    waitForLock?: boolean | undefined;
    role?: string | undefined;
    databaseUrl?: string | undefined;
    redisUrl?: string | undefined;
    workers?: string | number | undefined;
    /**
     * Server processes when neither --workers nor BERTH_WORKERS says: "cores" (berth serve) or 1
     * (berth dev: one process, as the official dev server, so graph modules' in-memory state is
     * shared by every run of a thread).
     */
    defaultWorkers?: "cores" | 1 | undefined;
  };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

const DEFAULT_PORT = 2024;
const DEFAULT_HEAP_GROWING_PERCENT = 50;

/** Parses flags and environment into a frozen config; throws a readable Error on bad values. */
export function parseAgentServerConfig(input: AgentServerConfigInput): AgentServerConfig {
  const { flags, env, cwd } = input;
  const explicitPort = flags.port ?? env.BERTH_PORT ?? env.PORT;
  const graphConfigPath = path.resolve(
    cwd,
    flags.config ?? env.BERTH_GRAPH_CONFIG ?? findDefaultGraphConfig(cwd),
  );
  const dataDir = path.resolve(
    cwd,
    flags.dataDir ?? env.BERTH_DATA_DIR ?? path.join(path.dirname(graphConfigPath), ".berth", "agent-server"),
  );
  const role = (flags.role ?? env.BERTH_ROLE ?? "all") as AgentServerRole;
  if (!ROLES.includes(role)) throw new Error(`Invalid role: ${role} (expected api, worker or all)`);
  const databaseUrl = nonEmpty(flags.databaseUrl) ?? nonEmpty(env.DATABASE_URI) ?? null;
  if (role !== "all" && databaseUrl === null) {
    throw new Error(
      `The ${role} role needs a database shared with the other processes: set DATABASE_URI (or --database-url)`,
    );
  }
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error("Invalid DATABASE_URI: expected a postgres:// or postgresql:// URL");
  }
  const redisUrl = nonEmpty(flags.redisUrl) ?? nonEmpty(env.REDIS_URI) ?? null;
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl)) {
    throw new Error("Invalid REDIS_URI: expected a redis:// or rediss:// URL");
  }
  const sharedDataDir = ["1", "true", "yes"].includes((env.BERTH_SHARED_DATA_DIR ?? "").toLowerCase());
  if (sharedDataDir && databaseUrl === null && redisUrl === null) {
    throw new Error(
      "BERTH_SHARED_DATA_DIR needs REDIS_URI: the processes sharing the data directory signal each other and stream through Redis",
    );
  }
  const databaseSchema = nonEmpty(env.BERTH_DATABASE_SCHEMA) ?? null;
  const waitForLock =
    flags.waitForLock ?? ["1", "true", "yes"].includes((env.BERTH_WAIT_FOR_LOCK ?? "").toLowerCase());
  const workers = parseWorkers(flags.workers ?? env.BERTH_WORKERS, {
    databaseUrl,
    waitForLock: waitForLock || sharedDataDir,
    byDefault: flags.defaultWorkers === 1 ? 1 : os.availableParallelism(),
  });
  if (databaseSchema !== null && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(databaseSchema)) {
    throw new Error(`Invalid BERTH_DATABASE_SCHEMA: ${databaseSchema} (letters, digits and _, at most 63)`);
  }
  return Object.freeze({
    role,
    databaseUrl,
    databaseSchema,
    databasePoolSize: integer("BERTH_DATABASE_POOL_SIZE", env.BERTH_DATABASE_POOL_SIZE ?? 20, 1, 1000),
    redisUrl,
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? "berth:",
    host: flags.host ?? env.BERTH_HOST ?? "127.0.0.1",
    port: explicitPort === undefined ? DEFAULT_PORT : integer("port", explicitPort, 0, 65535),
    portFallback: explicitPort === undefined,
    graphConfigPath,
    dataDir,
    jobsPerWorker: integer("jobs per worker", flags.jobsPerWorker ?? env.N_JOBS_PER_WORKER ?? 10, 1, 1000),
    waitForLock,
    sharedDataDir,
    leaseMs: integer("BERTH_LEASE_MS", env.BERTH_LEASE_MS ?? 30_000, 100, 3_600_000),
    heartbeatMs: integer("BERTH_HEARTBEAT_MS", env.BERTH_HEARTBEAT_MS ?? 10_000, 50, 3_600_000),
    reaperIntervalMs: integer("BERTH_REAPER_MS", env.BERTH_REAPER_MS ?? 15_000, 50, 3_600_000),
    maxAttempts: integer("BG_JOB_MAX_RETRIES", env.BG_JOB_MAX_RETRIES ?? 3, 1, 100),
    runTimeoutMs: integer("BG_JOB_TIMEOUT_SECS", env.BG_JOB_TIMEOUT_SECS ?? 3600, 1, 604_800) * 1000,
    bodyLimitBytes: integer(
      "BERTH_BODY_LIMIT_BYTES",
      env.BERTH_BODY_LIMIT_BYTES ?? 10 * 1024 * 1024,
      1024,
      2 ** 31,
    ),
    shutdownGraceMs:
      integer("BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS", env.BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS ?? 10, 0, 3600) *
      1000,
    streamHeartbeatMs: integer(
      "BERTH_STREAM_HEARTBEAT_MS",
      env.BERTH_STREAM_HEARTBEAT_MS ?? 5_000,
      50,
      600_000,
    ),
    resumableStreamTtlMs:
      integer("RESUMABLE_STREAM_TTL_SECONDS", env.RESUMABLE_STREAM_TTL_SECONDS ?? 120, 1, 86_400) * 1000,
    schemaTimeoutMs: integer(
      "LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS",
      env.LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS ?? 120_000,
      100,
      600_000,
    ),
    schemaWarmup: !["0", "false", "no"].includes((env.BERTH_SCHEMA_WARMUP ?? "").toLowerCase()),
    waitKeepAliveMs: integer("BERTH_WAIT_KEEPALIVE_MS", env.BERTH_WAIT_KEEPALIVE_MS ?? 1_000, 50, 600_000),
    storeSweepMs: integer("BERTH_STORE_SWEEP_MS", env.BERTH_STORE_SWEEP_MS ?? 60_000, 100, 86_400_000),
    webhookAllowPrivate: ["1", "true", "yes"].includes((env.BERTH_WEBHOOK_ALLOW_PRIVATE ?? "").toLowerCase()),
    webhookTimeoutMs: integer(
      "BERTH_WEBHOOK_TIMEOUT_MS",
      env.BERTH_WEBHOOK_TIMEOUT_MS ?? 10_000,
      100,
      600_000,
    ),
    webhookMaxAttempts: integer("BERTH_WEBHOOK_MAX_ATTEMPTS", env.BERTH_WEBHOOK_MAX_ATTEMPTS ?? 3, 1, 20),
    webhookRetryBaseMs: integer("BERTH_WEBHOOK_RETRY_MS", env.BERTH_WEBHOOK_RETRY_MS ?? 1_000, 10, 600_000),
    logLevel: env.BERTH_LOG_LEVEL ?? env.LOG_LEVEL ?? "info",
    graphAssistantConfigs: parseGraphAssistantConfigs(env.LANGGRAPH_CONFIG),
    agentToken: env.BERTH_AGENT_TOKEN?.trim() ? env.BERTH_AGENT_TOKEN.trim() : null,
    requestTimeoutMs:
      integer("BERTH_REQUEST_TIMEOUT_SECS", env.BERTH_REQUEST_TIMEOUT_SECS ?? 60, 1, 86_400) * 1000,
    maxConnections: integer("BERTH_MAX_CONNECTIONS", env.BERTH_MAX_CONNECTIONS ?? 1024, 1, 1_000_000),
    publicUrl: env.LANGGRAPH_API_URL?.trim() ? env.LANGGRAPH_API_URL.trim().replace(/\/+$/, "") : null,
    tracing: ["LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2", "LANGSMITH_TRACING", "LANGCHAIN_TRACING"].some(
      (name) => env[name]?.trim().toLowerCase() === "true",
    ),
    workers,
    heapGrowingPercent: integer(
      "BERTH_HEAP_GROWING_PERCENT",
      env.BERTH_HEAP_GROWING_PERCENT ?? DEFAULT_HEAP_GROWING_PERCENT,
      0,
      1000,
    ),
    cluster: null,
  });
}

/**
 * `--workers` / BERTH_WORKERS. The embedded cluster shares SQLite files and the data-dir lock of one
 * primary; PostgreSQL deployments scale with separate processes instead, and a blue/green hand-over
 * (`--wait-for-lock`, or a data directory shared over Redis) serves from one process until the lock
 * is free: they default to 1 and refuse more.
 */
function parseWorkers(
  raw: string | number | undefined,
  context: { databaseUrl: string | null; waitForLock: boolean; byDefault: number },
): number {
  const single = context.databaseUrl !== null || context.waitForLock;
  if (raw === undefined || (typeof raw === "string" && raw.trim() === ""))
    return single ? 1 : context.byDefault;
  const workers = integer("workers", raw, 1, 256);
  if (workers > 1 && context.databaseUrl !== null)
    throw new Error("--workers applies to the embedded SQLite mode; with DATABASE_URI run more processes");
  if (workers > 1 && context.waitForLock)
    throw new Error("--workers cannot be combined with --wait-for-lock or BERTH_SHARED_DATA_DIR");
  return workers;
}

/** The config of a child of the embedded cluster: the primary's, for one process on a fixed port. */
export function clusterChildConfig(
  primary: AgentServerConfig,
  role: ClusterChildRole,
  port: number,
): AgentServerConfig {
  return Object.freeze({
    ...primary,
    port,
    portFallback: false,
    workers: 1,
    cluster: Object.freeze({ ...role }),
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value?.trim() ? value.trim() : undefined;
}

function findDefaultGraphConfig(cwd: string): string {
  // Resolved lazily by the loader, which reports a missing file clearly; graph.json wins over langgraph.json.
  return path.join(cwd, "graph.json");
}

function integer(name: string, value: string | number, min: number, max: number): number {
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(`Invalid ${name}: ${value} (expected an integer from ${min} to ${max})`);
  }
  return n;
}

/** `LANGGRAPH_CONFIG` (JSON object by graph id, as the official servers read it), or `{}` when unset. */
export function parseGraphAssistantConfigs(raw: string | undefined): Record<string, Record<string, unknown>> {
  if (raw === undefined || raw.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error("Invalid LANGGRAPH_CONFIG: not JSON (expected an object by graph id)");
  }
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isObject(parsed) || !Object.values(parsed).every(isObject))
    throw new Error("Invalid LANGGRAPH_CONFIG: expected an object of objects by graph id");
  return parsed as Record<string, Record<string, unknown>>;
}

/** The environment variable through which the primary hands a child its config. */
export const CLUSTER_CHILD_CONFIG_ENV = "BERTH_CLUSTER_CHILD_CONFIG";

/** In a child of the embedded cluster: the config its primary parsed (null in any other process). */
export function readClusterChildConfig(
  env: Readonly<Record<string, string | undefined>>,
): AgentServerConfig | null {
  const raw = env[CLUSTER_CHILD_CONFIG_ENV];
  if (!raw) return null;
  const config = JSON.parse(raw) as AgentServerConfig;
  if (!config.cluster) throw new Error(`${CLUSTER_CHILD_CONFIG_ENV} does not describe a cluster child`);
  return Object.freeze({ ...config, cluster: Object.freeze({ ...config.cluster }) });
}
