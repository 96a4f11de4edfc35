import Database from "better-sqlite3";
import { cacheStatements } from "./statement-cache.js";
import { BACKGROUND_AUTOCHECKPOINT_PAGES, WAL_SIZE_AT_RESTART_BYTES } from "./wal-checkpoints.js";

/**
 * Opens a SQLite file the way every Berth store uses it: WAL with `synchronous=NORMAL` (a commit
 * survives a process crash; docs/decisions.md), a busy timeout, foreign keys, and cached prepared
 * statements. `backgroundCheckpoints`: a WalCheckpoints worker checkpoints the file, so this
 * connection only does past the safety-net threshold.
 */
export function openSqliteFile(
  file: string,
  options: { immediateTransactions?: boolean; backgroundCheckpoints?: boolean } = {},
): Database.Database {
  const raw = new Database(file);
  raw.pragma("journal_mode = WAL");
  raw.pragma("synchronous = NORMAL");
  raw.pragma("busy_timeout = 5000");
  raw.pragma("foreign_keys = ON");
  if (options.backgroundCheckpoints) {
    raw.pragma(`wal_autocheckpoint = ${BACKGROUND_AUTOCHECKPOINT_PAGES}`);
    // The WAL can grow to the safety net under sustained writes; the first commit after it
    // restarts from the beginning shrinks the file back to what inline checkpoints left.
    raw.pragma(`journal_size_limit = ${WAL_SIZE_AT_RESTART_BYTES}`);
  }
  cacheStatements(raw);
  if (options.immediateTransactions) immediateTransactions(raw);
  return raw;
}

/**
 * Makes Kysely's transactions `BEGIN IMMEDIATE` (it sends a plain `begin`), for a file that other
 * processes write too. In WAL mode a deferred transaction that reads, then writes after another
 * process committed fails at once with SQLITE_BUSY_SNAPSHOT (no busy handler is called for it);
 * taking the write lock at `BEGIN` makes the busy timeout wait for the other writer instead.
 */
export function immediateTransactions(db: Database.Database): void {
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) =>
    prepare(sql.trim().toLowerCase() === "begin" ? "begin immediate" : sql)) as typeof db.prepare;
}
