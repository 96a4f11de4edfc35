import fs from "node:fs";
import path from "node:path";
import { lockDataDir } from "@berth-platform/server-kit";
import type { CheckpointAdmin, Storage } from "../types.js";
import { SqliteAssistantStore } from "./assistants.js";
import type { BerthSqliteSaver } from "./checkpoints.js";
import { openSqliteCheckpointer } from "./checkpoints.js";
import { SqliteCronStore } from "./crons.js";
import { openSqliteDatabase } from "./database.js";
import { SqliteRunStore } from "./runs.js";
import { SqliteItemStore } from "./store.js";
import { SqliteThreadStore } from "./threads.js";

/** The embedded backend: two SQLite files in a data directory. */
export interface SqliteBackend {
  storage: Storage;
  checkpointer: BerthSqliteSaver;
  checkpoints: CheckpointAdmin;
}

/**
 * Opens the agent server's data directory (created if missing), locked unless `lock: false` (the
 * caller then takes the lock itself, later: the blue/green hand-over).
 */
export async function openSqliteBackend(
  dataDir: string,
  options: { lock?: boolean } = {},
): Promise<SqliteBackend> {
  fs.mkdirSync(dataDir, { recursive: true });
  const lock = options.lock === false ? { release() {} } : lockDataDir(dataDir);
  try {
    const { db } = await openSqliteDatabase(path.join(dataDir, "agent-server.sqlite"));
    const checkpoints = openSqliteCheckpointer(path.join(dataDir, "checkpoints.sqlite"));
    const storage: Storage = {
      threads: new SqliteThreadStore(db),
      runs: new SqliteRunStore(db),
      assistants: new SqliteAssistantStore(db),
      items: new SqliteItemStore(db),
      crons: new SqliteCronStore(db),
      async close() {
        await db.destroy();
        checkpoints.close();
        lock.release();
      },
    };
    return { storage, checkpointer: checkpoints.saver, checkpoints: checkpoints.admin };
  } catch (error) {
    lock.release();
    throw error;
  }
}
