import {
  migrateToLatest,
  openSqliteFile,
  SharedFileSqliteDialect,
  SqliteFileDialect,
} from "@berth-platform/server-kit";
import { Kysely } from "kysely";
import { migrationsFor } from "../sql/migrations.js";
import type { AgentServerDb } from "../sql/schema.js";
import { sqliteDialect } from "./dialect.js";

/**
 * Opens (creating if needed) the agent server's SQLite file and brings its schema up to date.
 * `shared`: other processes write the file too (transactions take the write lock at BEGIN);
 * `backgroundCheckpoints`: a worker thread checkpoints its WAL (see openSqliteBackend).
 */
export async function openSqliteDatabase(
  file: string,
  options: { shared?: boolean; backgroundCheckpoints?: boolean } = {},
): Promise<{ db: Kysely<AgentServerDb> }> {
  const database = openSqliteFile(file, {
    immediateTransactions: options.shared === true,
    backgroundCheckpoints: options.backgroundCheckpoints === true,
  });
  if (options.shared === true) database.pragma(`mmap_size = ${SHARED_MMAP_BYTES}`);
  // Shared: a statement refused by another process's write lock is retried without blocking the
  // event loop (SQLite's busy handler would sleep the thread).
  const dialect =
    options.shared === true ? new SharedFileSqliteDialect(database) : new SqliteFileDialect(database);
  const db = new Kysely<AgentServerDb>({ dialect });
  await migrateToLatest(db, migrationsFor(sqliteDialect));
  return { db };
}

/**
 * Memory-mapped reads for files other processes write: every commit elsewhere empties this
 * connection's page cache, and reading the pages back through the map costs no system call or
 * copy (measured in the embedded cluster: docs/decisions.md, issue 12).
 */
export const SHARED_MMAP_BYTES = 256 * 1024 * 1024;
