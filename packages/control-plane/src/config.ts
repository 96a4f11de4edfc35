import path from "node:path";

/** Everything the control plane needs to start, parsed once and frozen. */
export interface ControlPlaneConfig {
  readonly host: string;
  readonly port: number;
  /** Try the following ports when `port` is taken (the default port); false for an explicit port. */
  readonly portFallback: boolean;
  /** Absolute path of the directory holding the SQLite file, the secrets key and deployment data. */
  readonly dataDir: string;
  /**
   * PostgreSQL URL to keep state in instead of the SQLite file (`--database-url`,
   * BERTH_DATABASE_URL; never plain DATABASE_URL, which other programs and CI set); null: SQLite.
   */
  readonly databaseUrl: string | null;
  /**
   * Redis the local runtime's agent servers share (`--redis-url`, REDIS_URI, the agent server's own
   * name), each deployment under its own key prefix: a revision switch then sends new requests to
   * the new revision at once while the old one finishes its runs. Null: the switch holds them.
   */
  readonly redisUrl: string | null;
  /** The admin key to create on first start instead of a generated one (`--api-key`, BERTH_API_KEY). */
  readonly bootstrapApiKey: string | null;
  /** 32-byte AES key for secrets at rest (BERTH_SECRETS_KEY, base64); null: generated into the data dir. */
  readonly secretsKey: Buffer | null;
  /** Largest accepted request body. */
  readonly bodyLimitBytes: number;
  /** Largest source archive an upload URL accepts (the real service: 200 MB). */
  readonly uploadLimitBytes: number;
  /** The URL clients reach the control plane at, for upload URLs; null: the request's own host. */
  readonly publicUrl: string | null;
  /** Git hosts offered as integrations: each a named directory of git repositories. */
  readonly gitHosts: ReadonlyArray<GitHostConfig>;
  /** How often the provisioner retries work that failed. */
  readonly provisionIntervalMs: number;
  /**
   * The container registry push-token hands out (BERTH_REGISTRY_URL, BERTH_REGISTRY_TOKEN): where
   * `langgraph deploy` pushes internal_container images; null: none (push-token answers 400).
   */
  readonly registry: { readonly url: string; readonly token: string } | null;
  /** A listener that has not polled for this long shows as DISCONNECTED (BERTH_LISTENER_TIMEOUT_SECS). */
  readonly listenerTimeoutMs: number;
  /** How often build_on_push branches are checked for new commits (BERTH_PUSH_POLL_SECS; 0: webhook only). */
  readonly pushPollMs: number;
  /** Time limit of each install/build command and of a git clone (BERTH_BUILD_TIMEOUT_SECS). */
  readonly buildTimeoutMs: number;
  /** How long a new agent server has to answer GET /ok (BERTH_DEPLOY_TIMEOUT_SECS). */
  readonly deployTimeoutMs: number;
  /** How long a replaced agent server may finish its runs before it is killed (BERTH_DRAIN_SECS). */
  readonly drainGraceMs: number;
  /** Limits of an uploaded source archive once extracted. */
  readonly archiveLimits: {
    readonly maxBytes: number;
    readonly maxEntries: number;
    readonly maxDepth: number;
  };
  readonly logLevel: string;
  /** Time a client has to send a whole request, an upload included (BERTH_REQUEST_TIMEOUT_SECS). */
  readonly requestTimeoutMs: number;
  /** Open connections at most (BERTH_MAX_CONNECTIONS). */
  readonly maxConnections: number;
  /** LangGraph Studio's address for "Open in Studio" links (BERTH_STUDIO_URL, default https://smith.langchain.com). */
  readonly studioUrl: string;
  /** Make /docs's document and compressed assets a few seconds after start (BERTH_DOCS_WARMUP, default on). */
  readonly docsWarmup: boolean;
  /** Traces of deployed agents (issue 17). */
  readonly tracing: TracingConfig;
  /**
   * Workspace isolation of the local runtime (BERTH_WORKSPACE_USERS, BERTH_WORKSPACE_UID_BASE,
   * BERTH_SANDBOX): a separate OS user per workspace ("auto": when running as root) and the
   * bubblewrap sandbox ("auto": when `bwrap` is installed).
   */
  readonly isolation: {
    readonly workspaceUsers: "auto" | "on" | "off";
    readonly uidBase: number;
    readonly sandbox: "auto" | "on" | "off";
    /** The operator's npm cache, which a new workspace's own cache starts from (offline installs). */
    readonly npmCacheSeed: string | null;
  };
}

/** Tracing: whether deployed agents trace to the control plane, ingest limits, retention. */
export interface TracingConfig {
  /** Deployed agents get LANGSMITH_* variables pointing at the control plane (BERTH_TRACING, default on). */
  readonly enabled: boolean;
  /** Largest ingest request body, compressed or not (BERTH_TRACE_INGEST_LIMIT_BYTES). */
  readonly ingestLimitBytes: number;
  /** Run operations the ingest queue holds before it drops (BERTH_TRACE_QUEUE_RUNS). */
  readonly queueRuns: number;
  /** Payload bytes the ingest queue holds before it drops (BERTH_TRACE_QUEUE_BYTES). */
  readonly queueBytes: number;
  /** Runs are removed after this many days (BERTH_TRACE_RETENTION_DAYS; 0: kept). */
  readonly retentionDays: number;
  /** A project's oldest traces are removed past this many bytes (BERTH_TRACE_PROJECT_MAX_BYTES; 0: no limit). */
  readonly projectMaxBytes: number;
  /** How often retention runs (BERTH_TRACE_SWEEP_SECS). */
  readonly sweepIntervalMs: number;
}

/** Raw inputs: CLI flags (already split by commander) and the process environment. */
export interface ControlPlaneConfigInput {
  flags: {
    host?: string | undefined;
    port?: string | number | undefined;
    dataDir?: string | undefined;
    apiKey?: string | undefined;
    databaseUrl?: string | undefined;
    redisUrl?: string | undefined;
  };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/** The control plane's default port (the agent server's `berth dev` uses 2024). */
export const DEFAULT_CONTROL_PLANE_PORT = 8124;

/** Parses flags and environment into a frozen config; throws a readable Error on bad values. */
export function parseControlPlaneConfig(input: ControlPlaneConfigInput): ControlPlaneConfig {
  const { flags, env, cwd } = input;
  const explicitPort = flags.port ?? env.BERTH_CONTROL_PLANE_PORT;
  const apiKey = flags.apiKey ?? env.BERTH_API_KEY ?? null;
  if (apiKey !== null && (apiKey.length < 16 || apiKey.length > 512 || /\s/.test(apiKey))) {
    throw new Error("The API key (--api-key / BERTH_API_KEY) must be 16–512 characters without spaces.");
  }
  return Object.freeze({
    host: flags.host ?? env.BERTH_HOST ?? "127.0.0.1",
    port: explicitPort === undefined ? DEFAULT_CONTROL_PLANE_PORT : integer("port", explicitPort, 0, 65535),
    portFallback: explicitPort === undefined,
    dataDir: path.resolve(cwd, flags.dataDir ?? env.BERTH_DATA_DIR ?? path.join(".berth", "control-plane")),
    databaseUrl: databaseUrl(flags.databaseUrl ?? env.BERTH_DATABASE_URL),
    redisUrl: redisUrl(flags.redisUrl ?? env.REDIS_URI),
    bootstrapApiKey: apiKey,
    secretsKey: env.BERTH_SECRETS_KEY ? secretsKey(env.BERTH_SECRETS_KEY) : null,
    bodyLimitBytes: integer(
      "BERTH_CONTROL_PLANE_BODY_LIMIT_BYTES",
      env.BERTH_CONTROL_PLANE_BODY_LIMIT_BYTES ?? 1024 * 1024,
      1024,
      64 * 1024 * 1024,
    ),
    provisionIntervalMs: integer(
      "BERTH_PROVISION_INTERVAL_MS",
      env.BERTH_PROVISION_INTERVAL_MS ?? 5000,
      50,
      3_600_000,
    ),
    registry: registry(env.BERTH_REGISTRY_URL, env.BERTH_REGISTRY_TOKEN),
    listenerTimeoutMs:
      integer("BERTH_LISTENER_TIMEOUT_SECS", env.BERTH_LISTENER_TIMEOUT_SECS ?? 30, 1, 86_400) * 1000,
    pushPollMs: integer("BERTH_PUSH_POLL_SECS", env.BERTH_PUSH_POLL_SECS ?? 60, 0, 86_400) * 1000,
    buildTimeoutMs:
      integer("BERTH_BUILD_TIMEOUT_SECS", env.BERTH_BUILD_TIMEOUT_SECS ?? 900, 1, 86_400) * 1000,
    deployTimeoutMs:
      integer("BERTH_DEPLOY_TIMEOUT_SECS", env.BERTH_DEPLOY_TIMEOUT_SECS ?? 120, 1, 3600) * 1000,
    drainGraceMs: integer("BERTH_DRAIN_SECS", env.BERTH_DRAIN_SECS ?? 15, 0, 3600) * 1000,
    archiveLimits: Object.freeze({
      maxBytes: integer(
        "BERTH_ARCHIVE_MAX_BYTES",
        env.BERTH_ARCHIVE_MAX_BYTES ?? 1024 * 1024 * 1024,
        1024,
        2 ** 42,
      ),
      maxEntries: integer(
        "BERTH_ARCHIVE_MAX_ENTRIES",
        env.BERTH_ARCHIVE_MAX_ENTRIES ?? 50_000,
        1,
        10_000_000,
      ),
      maxDepth: integer("BERTH_ARCHIVE_MAX_DEPTH", env.BERTH_ARCHIVE_MAX_DEPTH ?? 32, 1, 1000),
    }),
    uploadLimitBytes: integer(
      "BERTH_UPLOAD_LIMIT_BYTES",
      env.BERTH_UPLOAD_LIMIT_BYTES ?? 200 * 1024 * 1024,
      1024,
      2 ** 40,
    ),
    publicUrl: env.BERTH_PUBLIC_URL ? env.BERTH_PUBLIC_URL.replace(/\/+$/, "") : null,
    gitHosts: parseGitHosts(env.BERTH_GIT_HOSTS, cwd),
    logLevel: env.BERTH_LOG_LEVEL ?? env.LOG_LEVEL ?? "info",
    requestTimeoutMs:
      integer("BERTH_REQUEST_TIMEOUT_SECS", env.BERTH_REQUEST_TIMEOUT_SECS ?? 60, 1, 86_400) * 1000,
    maxConnections: integer("BERTH_MAX_CONNECTIONS", env.BERTH_MAX_CONNECTIONS ?? 1024, 1, 1_000_000),
    studioUrl: (env.BERTH_STUDIO_URL || "https://smith.langchain.com").replace(/\/+$/, ""),
    docsWarmup: !["0", "false", "no", "off"].includes((env.BERTH_DOCS_WARMUP ?? "").toLowerCase()),
    tracing: Object.freeze({
      enabled: choice("BERTH_TRACING", env.BERTH_TRACING) !== "off",
      ingestLimitBytes: integer(
        "BERTH_TRACE_INGEST_LIMIT_BYTES",
        env.BERTH_TRACE_INGEST_LIMIT_BYTES ?? 40 * 1024 * 1024,
        64 * 1024,
        1024 * 1024 * 1024,
      ),
      queueRuns: integer("BERTH_TRACE_QUEUE_RUNS", env.BERTH_TRACE_QUEUE_RUNS ?? 50_000, 1, 10_000_000),
      queueBytes: integer(
        "BERTH_TRACE_QUEUE_BYTES",
        env.BERTH_TRACE_QUEUE_BYTES ?? 256 * 1024 * 1024,
        1024,
        2 ** 40,
      ),
      retentionDays: integer("BERTH_TRACE_RETENTION_DAYS", env.BERTH_TRACE_RETENTION_DAYS ?? 14, 0, 36_500),
      projectMaxBytes: integer(
        "BERTH_TRACE_PROJECT_MAX_BYTES",
        env.BERTH_TRACE_PROJECT_MAX_BYTES ?? 1024 * 1024 * 1024,
        0,
        2 ** 50,
      ),
      sweepIntervalMs: integer("BERTH_TRACE_SWEEP_SECS", env.BERTH_TRACE_SWEEP_SECS ?? 600, 1, 86_400) * 1000,
    }),
    isolation: Object.freeze({
      workspaceUsers: choice("BERTH_WORKSPACE_USERS", env.BERTH_WORKSPACE_USERS),
      uidBase: integer(
        "BERTH_WORKSPACE_UID_BASE",
        env.BERTH_WORKSPACE_UID_BASE ?? 200_000,
        1000,
        2 ** 31 - 2,
      ),
      sandbox: choice("BERTH_SANDBOX", env.BERTH_SANDBOX),
      npmCacheSeed:
        env.npm_config_cache ?? env.NPM_CONFIG_CACHE ?? (env.HOME ? path.join(env.HOME, ".npm") : null),
    }),
  });
}

function registry(url: string | undefined, token: string | undefined) {
  if (!url?.trim() && !token?.trim()) return null;
  if (!url?.trim() || !token?.trim()) {
    throw new Error(
      "BERTH_REGISTRY_URL and BERTH_REGISTRY_TOKEN go together (the registry and its push token).",
    );
  }
  const host = url
    .trim()
    .replace(/^https?:\/\//, "")
    .replace(/\/+$/, "");
  if (!/^[A-Za-z0-9.-]+(:\d+)?(\/[a-z0-9._/-]+)?$/.test(host)) {
    throw new Error(
      `Invalid BERTH_REGISTRY_URL: ${url} (expected a registry host with an optional path, e.g. registry.example.com/agents)`,
    );
  }
  return Object.freeze({ url: host, token: token.trim() });
}

function choice(name: string, value: string | undefined): "auto" | "on" | "off" {
  const text = (value ?? "auto").trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(text)) return "on";
  if (["0", "false", "no", "off"].includes(text)) return "off";
  if (text === "auto" || text === "") return "auto";
  throw new Error(`Invalid ${name}: ${value} (expected auto, on or off)`);
}

function databaseUrl(text: string | undefined): string | null {
  if (!text?.trim()) return null;
  if (!/^postgres(ql)?:\/\//.test(text.trim())) {
    throw new Error("The database URL (--database-url / BERTH_DATABASE_URL) must be a postgresql:// URL.");
  }
  return text.trim();
}

function redisUrl(text: string | undefined): string | null {
  if (!text?.trim()) return null;
  if (!/^rediss?:\/\//.test(text.trim())) {
    throw new Error("The Redis URL (--redis-url / REDIS_URI) must be a redis:// or rediss:// URL.");
  }
  return text.trim();
}

function secretsKey(text: string): Buffer {
  const key = Buffer.from(text.trim(), "base64");
  if (key.length !== 32) throw new Error("BERTH_SECRETS_KEY must be 32 bytes, base64-encoded.");
  return key;
}

function integer(name: string, value: string | number, min: number, max: number): number {
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(`Invalid ${name}: ${value} (expected an integer from ${min} to ${max})`);
  }
  return n;
}

/**
 * A git host offered to every workspace: a directory of repositories cloned by file URL, or the
 * base URL of an http(s) git server the operator trusts (it may be on a private address).
 */
export type GitHostConfig =
  | { name: string; directory: string; url?: undefined }
  | { name: string; url: string; directory?: undefined };

/** `BERTH_GIT_HOSTS`: `name=/path/to/repos[,name2=https://git.internal/org]`. */
function parseGitHosts(text: string | undefined, cwd: string): GitHostConfig[] {
  if (!text?.trim()) return [];
  return text.split(",").map((entry) => {
    const at = entry.indexOf("=");
    const name = entry.slice(0, at).trim();
    const target = entry.slice(at + 1).trim();
    if (at < 0 || !name || !target || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(name)) {
      throw new Error(
        `Invalid BERTH_GIT_HOSTS entry "${entry}" (expected name=/path/to/repos or name=https://git.host/prefix)`,
      );
    }
    if (/^https?:\/\//i.test(target)) {
      try {
        return { name, url: new URL(target).href.replace(/\/+$/, "") };
      } catch {
        throw new Error(`Invalid BERTH_GIT_HOSTS entry "${entry}": ${target} is not a URL`);
      }
    }
    return { name, directory: path.resolve(cwd, target) };
  });
}
