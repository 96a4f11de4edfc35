import path from "node:path";

/** Everything the control plane needs to start, parsed once and frozen. */
export interface ControlPlaneConfig {
  readonly host: string;
  readonly port: number;
  /** Try the following ports when `port` is taken (the default port); false for an explicit port. */
  readonly portFallback: boolean;
  /** Absolute path of the directory holding the SQLite file, the secrets key and deployment data. */
  readonly dataDir: string;
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
  readonly gitHosts: ReadonlyArray<{ name: string; directory: string }>;
  /** How often the provisioner retries work that failed. */
  readonly provisionIntervalMs: number;
  readonly logLevel: string;
}

/** Raw inputs: CLI flags (already split by commander) and the process environment. */
export interface ControlPlaneConfigInput {
  flags: {
    host?: string | undefined;
    port?: string | number | undefined;
    dataDir?: string | undefined;
    apiKey?: string | undefined;
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
    uploadLimitBytes: integer(
      "BERTH_UPLOAD_LIMIT_BYTES",
      env.BERTH_UPLOAD_LIMIT_BYTES ?? 200 * 1024 * 1024,
      1024,
      2 ** 40,
    ),
    publicUrl: env.BERTH_PUBLIC_URL ? env.BERTH_PUBLIC_URL.replace(/\/+$/, "") : null,
    gitHosts: parseGitHosts(env.BERTH_GIT_HOSTS, cwd),
    logLevel: env.BERTH_LOG_LEVEL ?? env.LOG_LEVEL ?? "info",
  });
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

/** `BERTH_GIT_HOSTS`: `name=/path/to/repos[,name2=/other/path]`. */
function parseGitHosts(text: string | undefined, cwd: string): Array<{ name: string; directory: string }> {
  if (!text?.trim()) return [];
  return text.split(",").map((entry) => {
    const [name, directory] = entry.split("=").map((part) => part.trim());
    if (!name || !directory || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(name)) {
      throw new Error(`Invalid BERTH_GIT_HOSTS entry "${entry}" (expected name=/path/to/repos)`);
    }
    return { name, directory: path.resolve(cwd, directory) };
  });
}
