import { migrateToLatest, NulGuardPlugin } from "@berth-platform/server-kit";
import { CompiledQuery, Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { ValidationError } from "../../errors.js";
import { migrationsFor } from "../sql/migrations.js";
import type { AgentServerDb } from "../sql/schema.js";
import { byteaArrayParser } from "./bytea-array.js";
import { postgresDialect } from "./dialect.js";
import { postgresRunMigrations } from "./run-shortcuts.js";

/** Options of the PostgreSQL backend. */
export interface PostgresOptions {
  /**
   * Schema the tables live in, created when missing (tests use a fresh one each); default: the
   * role's current schema.
   */
  schema?: string | undefined;
  /** Connections at most in this process's pool. */
  poolSize?: number | undefined;
  /** Called when an idle pooled connection fails (the pool replaces it; nothing else is affected). */
  onError?: ((error: Error) => void) | undefined;
}

const INT8_OID = 20;
const BYTEA_ARRAY_OID = 1001;
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** An open, migrated database: Kysely for the stores, its pool for the checkpointer, the schema name. */
export interface PostgresDatabase {
  db: Kysely<AgentServerDb>;
  pool: pg.Pool;
  schema: string;
}

/**
 * Connects a pool to `url` and brings the agent server's schema up to date in it; `migrateMore`
 * runs under the same migration lock (the checkpointer's own set-up).
 */
export async function openPostgresDatabase(
  url: string,
  options: PostgresOptions,
  migrateMore: (pool: pg.Pool, schema: string) => Promise<void>,
): Promise<PostgresDatabase> {
  const { schema } = options;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new Error(`Invalid PostgreSQL schema name "${schema}" (letters, digits and _, at most 63).`);
  }
  // Per pool, never pg's global parsers: bigint (seq, counts, epoch ms) comes back as a number,
  // as on SQLite; every such value stays far below 2^53.
  const types = new pg.TypeOverrides();
  types.setTypeParser(INT8_OID, Number);
  // pg's own parser, for what the fast one does not read (its typing names the wrong argument).
  const byteaArrays = types.getTypeParser(BYTEA_ARRAY_OID, "text") as unknown as (text: string) => unknown;
  types.setTypeParser(BYTEA_ARRAY_OID, byteaArrayParser(byteaArrays));
  const pool = new pg.Pool({
    connectionString: url,
    types,
    max: options.poolSize ?? 20,
    // A connection attempt that hangs (an overloaded or half-restarted server) fails instead of
    // holding its caller forever.
    connectionTimeoutMillis: 10_000,
    application_name: "berth-agent-server",
  });
  // Without a listener an idle connection's failure (a server restart) would end the process.
  pool.on("error", (error) => options.onError?.(error));
  // The same for a checked-out connection between two queries (inside a transaction): the pool
  // only listens while it is idle. Its pending and next queries fail; the pool drops it on release.
  pool.on("connect", (client) => client.on("error", () => {}));
  const db = new Kysely<AgentServerDb>({
    dialect: new PostgresDialect({
      pool,
      onCreateConnection: async (connection) => {
        if (schema) await connection.executeQuery(CompiledQuery.raw(`set search_path to "${schema}"`));
      },
    }),
    plugins: [new NulGuardPlugin((message) => new ValidationError(message))],
  });
  try {
    const tableSchema = await withMigrationLock(pool, schema ?? "", async () => {
      if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
      const name = schema ?? (await currentSchema(db));
      await migrateToLatest(db, migrationsFor(postgresDialect, postgresRunMigrations), {
        migrationTableSchema: name,
      });
      await migrateMore(pool, name);
      return name;
    });
    return { db, pool, schema: tableSchema };
  } catch (error) {
    await db.destroy().catch(() => {});
    throw error;
  }
}

/**
 * Runs `work` holding a session advisory lock named for the schema, so the processes of one
 * deployment, started together, migrate it one at a time (the checkpointer's set-up is not safe
 * to run concurrently), while other schemas (other deployments, tests) are never held up.
 */
async function withMigrationLock<T>(pool: pg.Pool, schema: string, work: () => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const key = `berth-agent-server:${schema}`;
  try {
    await client.query("select pg_advisory_lock(hashtext($1))", [key]);
    try {
      return await work();
    } finally {
      await client.query("select pg_advisory_unlock(hashtext($1))", [key]);
    }
  } finally {
    client.release();
  }
}

async function currentSchema(db: Kysely<AgentServerDb>): Promise<string> {
  const { rows } = await sql<{ name: string | null }>`select current_schema() as name`.execute(db);
  const name = rows[0]?.name;
  if (!name) throw new Error("The database role's search_path names no existing schema to create tables in.");
  return name;
}
