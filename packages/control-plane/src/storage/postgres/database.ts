import { migrateToLatest, NulGuardPlugin } from "@berth-platform/server-kit";
import { CompiledQuery, Kysely, PostgresDialect, sql } from "kysely";
import { Pool, TypeOverrides } from "pg";
import { BadRequestError } from "../../errors.js";
import { migrationsFor } from "../sql/migrations.js";
import type { ControlPlaneDb } from "../sql/schema.js";
import { postgresDialect } from "./dialect.js";

/** Options of the PostgreSQL backend. */
export interface PostgresOptions {
  /**
   * Schema the tables live in, created when missing (tests use a fresh one each); default: the
   * role's current schema.
   */
  schema?: string | undefined;
  /** Called when an idle pooled connection fails (the pool replaces it; nothing else is affected). */
  onError?: ((error: Error) => void) | undefined;
}

const INT8_OID = 20;
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Connects a pool to `url` and brings the control plane's schema up to date in it. */
export async function openPostgresDatabase(
  url: string,
  options: PostgresOptions = {},
): Promise<Kysely<ControlPlaneDb>> {
  const { schema } = options;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new Error(`Invalid PostgreSQL schema name "${schema}" (letters, digits and _, at most 63).`);
  }
  // Per pool, never pg's global parsers: bigint (seq, counts, epoch ms) comes back as a number,
  // as on SQLite; every such value stays far below 2^53.
  const types = new TypeOverrides();
  types.setTypeParser(INT8_OID, Number);
  const pool = new Pool({ connectionString: url, types, application_name: "berth-control-plane" });
  // Without a listener an idle connection's failure (a server restart) would end the process.
  pool.on("error", (error) => options.onError?.(error));
  const db = new Kysely<ControlPlaneDb>({
    dialect: new PostgresDialect({
      pool,
      onCreateConnection: async (connection) => {
        if (schema) await connection.executeQuery(CompiledQuery.raw(`set search_path to "${schema}"`));
      },
    }),
    plugins: [new NulGuardPlugin((message) => new BadRequestError(message))],
  });
  let tableSchema: string;
  try {
    if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
    tableSchema = schema ?? (await currentSchema(db));
  } catch (error) {
    await db.destroy();
    throw error;
  }
  await migrateToLatest(db, migrationsFor(postgresDialect), { migrationTableSchema: tableSchema });
  return db;
}

async function currentSchema(db: Kysely<ControlPlaneDb>): Promise<string> {
  const { rows } = await sql<{ name: string | null }>`select current_schema() as name`.execute(db);
  const name = rows[0]?.name;
  if (!name) throw new Error("The database role's search_path names no existing schema to create tables in.");
  return name;
}
