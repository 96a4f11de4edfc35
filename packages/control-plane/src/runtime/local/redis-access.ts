import { createHmac } from "node:crypto";
import { STREAM_APPEND_SCRIPT } from "@berth-platform/server-kit";
import { Redis } from "ioredis";
import type { Logger } from "pino";

/**
 * The commands a deployment's agent server sends (agent-server `redis/connection.ts`,
 * `queue/signals-redis.ts`, `stream/redis.ts`) and nothing else: EVALSHA of the stream append
 * script, which the control plane loads (XADD, PEXPIRE and PUBLISH inside it are checked too), the
 * stream reads, pub/sub, and ioredis's connection set-up (HELLO and AUTH need no permission; CLIENT
 * SETNAME the connection name, SELECT a database in the URL; the INFO ready check is off). Named
 * one by one rather than by category: @read/@keyspace hold SCAN and KEYS, which list every key
 * whatever the key patterns (other deployments' run ids). Not EVAL or SCRIPT (one endless script
 * blocks the Redis every deployment shares: BUSY until SCRIPT KILL), not INFO (the whole server's
 * clients and key counts).
 */
export const AGENT_REDIS_COMMANDS: readonly string[] = [
  "evalsha",
  "xadd",
  "pexpire",
  "xrange",
  "xrevrange",
  "exists",
  "publish",
  "subscribe",
  "unsubscribe",
  "ping",
  "select",
  "quit",
  "client|setname",
];

/** The Redis keys and channels of one deployment's agent servers (deployments share a Redis). */
export function redisKeyPrefix(deploymentId: string): string {
  return `berth:deployment:${deploymentId}:`;
}

/** The Redis ACL user of a deployment's agent servers. */
export function redisUserOf(deploymentId: string): string {
  return `berth-dep-${deploymentId}`;
}

/**
 * The `ACL SETUSER` arguments for a deployment: `reset` first, so applying it again (every deploy,
 * every reconnect) converges to exactly this, whatever was there; its own keys and channels only.
 */
export function aclRulesOf(deploymentId: string, password: string): string[] {
  const prefix = redisKeyPrefix(deploymentId);
  return [
    "reset",
    "on",
    `>${password}`,
    `~${prefix}*`,
    // `reset` grants every channel when acl-pubsub-default is allchannels (Redis 6.2's default).
    "resetchannels",
    `&${prefix}*`,
    ...AGENT_REDIS_COMMANDS.map((command) => `+${command}`),
  ];
}

/** `url` authenticating as `user`/`password` (scheme, host, database and options kept). */
export function redisUrlAs(url: string, user: string, password: string): string {
  const parsed = new URL(url);
  parsed.username = encodeURIComponent(user);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

/** A Redis URL fit for a log line: its password replaced. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparsable Redis URL)";
  }
}

/**
 * Whether `ACL GETUSER default`'s reply is an enabled user without a password that may run
 * commands (a `default` that is off, has a password, or may run nothing is no way in).
 */
export function defaultUserIsOpen(reply: unknown): boolean {
  if (!Array.isArray(reply)) return false;
  const fields = new Map<string, unknown>();
  for (let i = 0; i + 1 < reply.length; i += 2) fields.set(String(reply[i]), reply[i + 1]);
  const flags = (fields.get("flags") as unknown[] | undefined)?.map(String) ?? [];
  const commands = String(fields.get("commands") ?? "");
  return flags.includes("on") && flags.includes("nopass") && commands.trim() !== "-@all";
}

/** Where a deployment's agent servers reach Redis. */
export interface AgentRedis {
  url: string;
  keyPrefix: string;
}

/** Redis credentials of the deployments' agent servers (the local runtime's port). */
export interface DeploymentRedisAccess {
  /** Makes sure the deployment's credential works, then says how its agent servers connect. */
  grant(deploymentId: string): Promise<AgentRedis>;
  /** The deployment's connection again (a restart of an agent `grant` was called for); no Redis call. */
  current(deploymentId: string): AgentRedis;
  /** Removes the deployment's credential (the deployment is deleted). */
  revoke(deploymentId: string): Promise<void>;
  close(): Promise<void>;
}

/** How long a deploy waits for an ACL change when Redis is unreachable (it is re-applied later). */
const APPLY_WAIT_MS = 5_000;

/**
 * One Redis ACL user per deployment, `berth-dep-<id>`, allowed only its own key prefix, channels
 * and the agent server's commands. Its password is an HMAC of the deployment id (the key derived
 * from the secrets key), so a restarted control plane hands an adopted agent the same one without
 * storing it. Users are applied again whenever the control plane's connection comes back (a
 * restarted Redis without an ACL file forgets them). When the control plane's own Redis user may
 * not run ACL SETUSER (NOPERM, or a Redis without ACLs), it warns once and gives the agent servers
 * its own URL, as before (no isolation between deployments).
 */
export class RedisAclAccess implements DeploymentRedisAccess {
  readonly #url: string;
  readonly #secret: Buffer;
  readonly #logger: Logger;
  readonly #redis: Redis;
  /** Deployments whose users should exist (re-applied on reconnect). */
  readonly #granted = new Set<string>();
  /** Null until an ACL change was answered; then whether Redis lets us make users. */
  #supported: boolean | null = null;

  constructor(url: string, secret: Buffer, logger: Logger) {
    this.#url = url;
    this.#secret = Buffer.from(secret);
    this.#logger = logger;
    this.#redis = new Redis(url, {
      connectionName: "berth-control-plane",
      maxRetriesPerRequest: null,
      retryStrategy: (times) => Math.min(times * 200, 2_000),
    });
    let down = false;
    let connectedBefore = false;
    this.#redis.on("error", (error: Error) => {
      if (down) return;
      down = true;
      // The message only: the error may carry the connection options (the password).
      this.#logger.warn(
        { error: error.message, redis: redactRedisUrl(url) },
        "Redis unreachable (agent credentials)",
      );
    });
    this.#redis.on("ready", () => {
      down = false;
      if (connectedBefore) for (const id of this.#granted) void this.#apply(id).catch(() => {});
      else void this.#warnIfDefaultUserOpen();
      connectedBefore = true;
    });
  }

  async grant(deploymentId: string): Promise<AgentRedis> {
    this.#granted.add(deploymentId);
    const applied = this.#apply(deploymentId).then(
      () => "done" as const,
      (error: unknown) => error,
    );
    const outcome = await Promise.race([
      applied,
      new Promise<"waiting">((resolve) => setTimeout(resolve, APPLY_WAIT_MS, "waiting").unref()),
    ]);
    // Redis unreachable: the agent server gets its credential anyway (it retries connecting, as it
    // would with the shared one), and the user is applied once the connection is back.
    if (outcome !== "done")
      this.#logger.warn(
        { deploymentId, error: outcome === "waiting" ? "no answer" : (outcome as Error).message },
        "Redis ACL user not applied yet; applied once Redis answers",
      );
    return this.current(deploymentId);
  }

  current(deploymentId: string): AgentRedis {
    const keyPrefix = redisKeyPrefix(deploymentId);
    if (this.#supported === false) return { url: this.#url, keyPrefix };
    return { url: redisUrlAs(this.#url, redisUserOf(deploymentId), this.#password(deploymentId)), keyPrefix };
  }

  async revoke(deploymentId: string): Promise<void> {
    this.#granted.delete(deploymentId);
    if (this.#supported === false) return;
    // Bounded: commands wait in ioredis's offline queue while Redis is down, and a deletion must
    // not hang on it (the DELUSER still goes out when Redis is back).
    const deleted = this.#redis.call("ACL", "DELUSER", redisUserOf(deploymentId)).then(
      () => null,
      (error: unknown) => (error as Error).message ?? String(error),
    );
    const problem = await Promise.race([
      deleted,
      new Promise<string>((resolve) => setTimeout(resolve, APPLY_WAIT_MS, "no answer").unref()),
    ]);
    if (problem !== null)
      this.#logger.warn({ deploymentId, error: problem }, "could not delete the deployment's Redis ACL user");
  }

  async close(): Promise<void> {
    if (this.#redis.status === "ready") await this.#redis.quit().catch(() => this.#redis.disconnect());
    else this.#redis.disconnect();
  }

  /**
   * SCRIPT LOAD of the append script, then ACL SETUSER for one deployment; a refusal switches to
   * the shared credential (warned once). The script first: an agent server that can log in finds
   * it (a restarted Redis forgets both, and both are applied again on reconnect).
   */
  async #apply(deploymentId: string): Promise<void> {
    if (this.#supported === false) return;
    try {
      await this.#redis.call("SCRIPT", "LOAD", STREAM_APPEND_SCRIPT);
      await this.#redis.call(
        "ACL",
        "SETUSER",
        redisUserOf(deploymentId),
        ...aclRulesOf(deploymentId, this.#password(deploymentId)),
      );
      this.#supported = true;
    } catch (error) {
      const message = (error as Error).message ?? String(error);
      // Anything but a refusal (a connection error) is not a verdict on ACL support.
      if (!/NOPERM|unknown command|unknown subcommand|Syntax error|Error in ACL SETUSER/i.test(message))
        throw error;
      if (this.#supported === null) {
        this.#supported = false;
        this.#logger.warn(
          { error: message, redis: redactRedisUrl(this.#url) },
          "The control plane's Redis user cannot create ACL users (ACL SETUSER refused): every deployment's agent servers get the control plane's own Redis URL and can reach each other's keys and channels. Give it ACL rights (+acl) or a Redis ≥ 7 to isolate deployments.",
        );
      } else {
        this.#logger.error(
          { deploymentId, error: message },
          "Redis refused the deployment's ACL user; its agent servers cannot reach Redis",
        );
      }
    }
  }

  /**
   * Redis's `default` user without a password lets anything that reaches the port (deployment
   * code included) in as that user, with every key of every deployment: the per-deployment users
   * would protect nothing. Said loudly, once, at start (the shared test Redis is such a one, so
   * starting is not refused); the README gives the secure form.
   */
  async #warnIfDefaultUserOpen(): Promise<void> {
    let reply: unknown;
    try {
      reply = await this.#redis.call("ACL", "GETUSER", "default");
    } catch {
      return; // No ACL (Redis < 6) or no right to read users: the fallback warning covers it.
    }
    if (!defaultUserIsOpen(reply)) return;
    this.#logger.error(
      { redis: redactRedisUrl(this.#url) },
      "INSECURE REDIS: its `default` user has no password, so any process that reaches the Redis port — deployment code included — can read and change every deployment's keys and channels; the per-deployment Redis users protect nothing. Give the default user a password (`ACL SETUSER default on >PASSWORD`, or `requirepass`) or turn it off (`ACL SETUSER default off`), and start Berth with a user that may run ACL: --redis-url redis://berth:PASSWORD@HOST:6379 (README, 'Redis').",
    );
  }

  #password(deploymentId: string): string {
    return createHmac("sha256", this.#secret).update(`redis-acl:${deploymentId}`).digest("base64url");
  }
}
