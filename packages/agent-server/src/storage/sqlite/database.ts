import { migrateToLatest, openSqliteFile } from "@berth-platform/server-kit";
import { Kysely, SqliteDialect } from "kysely";
import { sqliteMigrations } from "./migrations.js";
import type { AgentServerDb } from "./schema.js";

/** Opens (creating if needed) the agent server's SQLite file and brings its schema up to date. */
export async function openSqliteDatabase(file: string): Promise<{ db: Kysely<AgentServerDb> }> {
  const db = new Kysely<AgentServerDb>({ dialect: new SqliteDialect({ database: openSqliteFile(file) }) });
  await migrateToLatest(db, sqliteMigrations);
  return { db };
}

/** Parses a JSON text column (the adapters only ever write valid JSON there). */
export function parseJson<T>(text: string | null): T {
  return (text === null ? null : JSON.parse(text)) as T;
}
