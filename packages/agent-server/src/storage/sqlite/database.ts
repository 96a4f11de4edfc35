import { migrateToLatest, openSqliteFile } from "@berth-platform/server-kit";
import { Kysely, SqliteDialect } from "kysely";
import { migrationsFor } from "../sql/migrations.js";
import type { AgentServerDb } from "../sql/schema.js";
import { sqliteDialect } from "./dialect.js";

/**
 * Opens (creating if needed) the agent server's SQLite file and brings its schema up to date.
 * `shared`: other processes write the file too (transactions take the write lock at BEGIN).
 */
export async function openSqliteDatabase(
  file: string,
  options: { shared?: boolean } = {},
): Promise<{ db: Kysely<AgentServerDb> }> {
  const database = openSqliteFile(file, { immediateTransactions: options.shared === true });
  const db = new Kysely<AgentServerDb>({ dialect: new SqliteDialect({ database }) });
  await migrateToLatest(db, migrationsFor(sqliteDialect));
  return { db };
}
