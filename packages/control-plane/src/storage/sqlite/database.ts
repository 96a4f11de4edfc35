import { migrateToLatest, openSqliteFile } from "@berth/server-kit";
import { Kysely, SqliteDialect } from "kysely";
import { sqliteMigrations } from "./migrations.js";
import type { ControlPlaneDb } from "./schema.js";

/** Opens (creating if needed) the control plane's SQLite file and brings its schema up to date. */
export async function openSqliteDatabase(file: string): Promise<Kysely<ControlPlaneDb>> {
  const db = new Kysely<ControlPlaneDb>({ dialect: new SqliteDialect({ database: openSqliteFile(file) }) });
  await migrateToLatest(db, sqliteMigrations);
  return db;
}

/** Parses a JSON text column (the adapter only ever writes valid JSON there). */
export function parseJson<T>(text: string | null): T {
  return (text === null ? null : JSON.parse(text)) as T;
}

/** Whether an error is SQLite's unique-constraint violation. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown }).code === "SQLITE_CONSTRAINT_UNIQUE";
}
