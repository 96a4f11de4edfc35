import fs from "node:fs";
import path from "node:path";
import { lockDataDir, startWalCheckpoints } from "@berth-platform/server-kit";
import { sqlStorage } from "../sql/index.js";
import type { StorageBackend } from "../types.js";
import { openSqliteCheckpointer } from "./checkpoints.js";
import { openSqliteDatabase } from "./database.js";
import { sqliteDialect } from "./dialect.js";

/** The embedded backend: two SQLite files in a data directory. */
export type SqliteBackend = StorageBackend;

/**
 * Opens the agent server's data directory (created if missing), locked unless `lock: false` (the
 * caller then takes the lock itself, later: the blue/green hand-over). `shared`: other live
 * processes open the same files and execute runs too (no lock; the queue then recovers runs by
 * lease expiry only, and transactions take SQLite's write lock at BEGIN). `otherWriters`: this
 * process holds the lock but others write the files too (the primary of the embedded cluster).
 * WAL checkpoints: files no other process writes are checkpointed by a worker thread of this
 * process (startWalCheckpoints), so no commit on the event loop's thread pays for it; files several
 * processes use (the embedded cluster, the blue/green hand-over) keep SQLite's inline checkpoint:
 * with other processes reading, a worker's checkpoint rarely lets the WAL restart, and each commit
 * past the safety net then tries again. `onCheckpointError` hears the worker's failures.
 */
export async function openSqliteBackend(
  dataDir: string,
  options: {
    lock?: boolean;
    shared?: boolean;
    otherWriters?: boolean;
    onCheckpointError?: (message: string) => void;
  } = {},
): Promise<SqliteBackend> {
  fs.mkdirSync(dataDir, { recursive: true });
  const shared = options.shared === true;
  const lock = options.lock === false || shared ? { release() {} } : lockDataDir(dataDir);
  try {
    const concurrent = shared || options.otherWriters === true;
    const backgroundCheckpoints = !concurrent;
    const files = [
      path.join(dataDir, "agent-server.sqlite"),
      path.join(dataDir, "checkpoints.sqlite"),
    ] as const;
    const { db } = await openSqliteDatabase(files[0], { shared: concurrent, backgroundCheckpoints });
    const checkpoints = openSqliteCheckpointer(files[1], { shared: concurrent, backgroundCheckpoints });
    const checkpointer = backgroundCheckpoints
      ? startWalCheckpoints([...files], { onError: options.onCheckpointError })
      : undefined;
    const storage = sqlStorage(
      db,
      sqliteDialect,
      async () => {
        await checkpointer?.stop();
        await db.destroy();
        checkpoints.close();
        lock.release();
      },
      { runs: { probeBeforeClaim: concurrent } },
    );
    return { storage, checkpointer: checkpoints.saver, checkpoints: checkpoints.admin, shared };
  } catch (error) {
    lock.release();
    throw error;
  }
}
