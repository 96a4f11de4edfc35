import Database from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect } from "kysely";
import { sqliteMigrations } from "./migrations.js";
import type { AgentServerDb } from "./schema.js";
import { cacheStatements } from "./statement-cache.js";

/** Opens (creating if needed) the agent server's SQLite file and brings its schema up to date. */
export async function openSqliteDatabase(
  file: string,
): Promise<{ db: Kysely<AgentServerDb>; raw: Database.Database }> {
  const raw = new Database(file);
  // WAL + NORMAL: a committed transaction survives a process crash; only an OS crash or power loss
  // can lose the last commits (docs/decisions.md). busy_timeout covers readers of other processes.
  raw.pragma("journal_mode = WAL");
  raw.pragma("synchronous = NORMAL");
  raw.pragma("busy_timeout = 5000");
  raw.pragma("foreign_keys = ON");
  cacheStatements(raw);
  const db = new Kysely<AgentServerDb>({ dialect: new SqliteDialect({ database: raw }) });
  // Unordered: features add their migrations independently (named by feature, not only by number).
  const { error, results } = await new Migrator({
    db,
    provider: sqliteMigrations,
    allowUnorderedMigrations: true,
  }).migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    await db.destroy();
    throw new Error(
      `Database migration failed${failed ? ` at ${failed.migrationName}` : ""}: ${String(error)}`,
    );
  }
  return { db, raw };
}

/** Parses a JSON text column (the adapters only ever write valid JSON there). */
export function parseJson<T>(text: string | null): T {
  return (text === null ? null : JSON.parse(text)) as T;
}
