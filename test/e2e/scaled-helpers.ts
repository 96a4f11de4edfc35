// A scaled-out agent server for tests: API and worker processes of the built CLI (`berth serve`)
// on the PostgreSQL and Redis CI exports (DATABASE_URL, REDIS_URL), each cluster in a fresh schema
// and under a fresh Redis key prefix (or on a Redis of its own, for a test that stops Redis).
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { type SpawnedServer, spawnBerth } from "@berth-platform/testkit";
import { Client } from "@langchain/langgraph-sdk";
import { Redis } from "ioredis";
import pg from "pg";
import { FIXTURE_CONFIG } from "./helpers.js";
import { PrivateRedis } from "./private-redis.js";

/** PostgreSQL and Redis URLs, or undefined (the scaled-out tests then skip with a notice). */
export const SCALED_SERVICES =
  process.env.DATABASE_URL && process.env.REDIS_URL
    ? { databaseUrl: process.env.DATABASE_URL, redisUrl: process.env.REDIS_URL }
    : undefined;

/**
 * Without PostgreSQL and Redis (a newcomer's laptop): says so, and records `title` as skipped so
 * the report shows what did not run.
 */
export function skipWithoutServices(what: string, title: string): void {
  console.log(`# DATABASE_URL or REDIS_URL is not set: ${what} skipped.`);
  test(title, { skip: "DATABASE_URL or REDIS_URL is not set" }, () => {});
}

/** A running cluster: API and worker processes sharing one schema and one key prefix. */
export interface ScaledCluster {
  apis: SpawnedServer[];
  workers: SpawnedServer[];
  /** An SDK client per API process. */
  clients: Client[];
  schema: string;
  /** The cluster's own Redis, when it was asked for one. */
  redis: PrivateRedis | undefined;
  /** The Redis the processes use, and their key prefix (inspection from tests). */
  redisUrl: string;
  prefix: string;
  /** Starts one more process of `role` in the cluster, `extraEnv` over the cluster's own. */
  start(role: "api" | "worker", extraEnv?: Record<string, string>): Promise<SpawnedServer>;
  /** Runs SQL in the cluster's schema (inspection from tests). */
  query<T>(text: string, values?: unknown[]): Promise<T[]>;
}

/**
 * Starts `apis` API and `workers` worker processes for the test file (stopped and cleaned up
 * after it). Short leases, so a killed worker's runs are taken over within seconds.
 */
export function useScaledCluster(
  options: {
    apis: number;
    workers: number;
    /** Extra environment; a function is called (and awaited) just before the processes start. */
    env?: Record<string, string> | (() => Promise<Record<string, string>>);
    /** Runs a Redis of the cluster's own instead of the shared one (tests that stop Redis). */
    ownRedis?: boolean;
  },
  services: NonNullable<typeof SCALED_SERVICES>,
): () => ScaledCluster {
  const schema = `as_e2e_${randomBytes(5).toString("hex")}`;
  const prefix = `berth-test-${randomBytes(5).toString("hex")}:`;
  const env: Record<string, string> = {
    DATABASE_URI: services.databaseUrl,
    BERTH_DATABASE_SCHEMA: schema,
    BERTH_DATABASE_POOL_SIZE: "8",
    REDIS_KEY_PREFIX: prefix,
    BERTH_LEASE_MS: "3000",
    BERTH_HEARTBEAT_MS: "500",
    BERTH_REAPER_MS: "500",
    // Workers are killed on purpose: a run may lose more than the default 3 attempts to it.
    BG_JOB_MAX_RETRIES: "10",
    N_JOBS_PER_WORKER: "10",
    // The "listening on" line is an info line of the JSON log.
    BERTH_LOG_LEVEL: "info",
  };
  const processes: SpawnedServer[] = [];
  const pool = new pg.Pool({ connectionString: services.databaseUrl, max: 2 });
  let cluster: ScaledCluster | undefined;
  const start = async (role: "api" | "worker", extraEnv: Record<string, string> = {}) => {
    const server = await spawnBerth(
      ["serve", "--config", FIXTURE_CONFIG, "--port", "0", "--host", "127.0.0.1", "--role", role],
      { env: { ...env, ...extraEnv }, timeoutMs: 60_000 },
    );
    processes.push(server);
    return server;
  };
  const ownRedis = options.ownRedis ? new PrivateRedis() : undefined;
  before(async () => {
    await ownRedis?.start();
    env.REDIS_URI = ownRedis?.url ?? services.redisUrl;
    Object.assign(env, typeof options.env === "function" ? await options.env() : options.env);
    // The first process creates the schema; the others start once it is there.
    const first = await start("api");
    const rest = await Promise.all([
      ...Array.from({ length: options.apis - 1 }, () => start("api")),
      ...Array.from({ length: options.workers }, () => start("worker")),
    ]);
    const apis = [first, ...rest.slice(0, options.apis - 1)];
    cluster = {
      apis,
      workers: rest.slice(options.apis - 1),
      clients: apis.map((api) => new Client({ apiUrl: api.url })),
      schema,
      redis: ownRedis,
      redisUrl: ownRedis?.url ?? services.redisUrl,
      prefix,
      start,
      async query<T>(text: string, values: unknown[] = []) {
        const client = await pool.connect();
        try {
          await client.query(`set search_path to "${schema}"`);
          return (await client.query(text, values)).rows as T[];
        } finally {
          client.release();
        }
      },
    };
  });
  after(async () => {
    await Promise.all(processes.map((p) => p.stop("SIGKILL")));
    await pool.query(`drop schema if exists "${schema}" cascade`).catch(() => {});
    await pool.end();
    if (ownRedis) {
      await ownRedis.dispose();
      return;
    }
    const redis = new Redis(services.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
        cursor = next;
        if (keys.length) await redis.del(...keys);
      } while (cursor !== "0");
    } catch {
      // Keys expire by themselves.
    } finally {
      redis.disconnect();
    }
  });
  return () => {
    if (!cluster) throw new Error("cluster not started");
    return cluster;
  };
}
