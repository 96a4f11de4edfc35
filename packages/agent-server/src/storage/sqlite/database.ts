import { migrateToLatest, openSqliteFile } from "@berth-platform/server-kit";
import { Kysely, SqliteDialect } from "kysely";
import { migrationsFor } from "../sql/migrations.js";
import type { AgentServerDb } from "../sql/schema.js";
import { sqliteDialect } from "./dialect.js";

/** Opens (creating if needed) the agent server's SQLite file and brings its schema up to date. */
export async function openSqliteDatabase(file: string): Promise<{ db: Kysely<AgentServerDb> }> {
  const db = new Kysely<AgentServerDb>({ dialect: new SqliteDialect({ database: openSqliteFile(file) }) });
  await migrateToLatest(db, migrationsFor(sqliteDialect));
  return { db };
}
