import fs from "node:fs";
import path from "node:path";
import { lockDataDir } from "@berth-platform/server-kit";
import type { SecretBox } from "../../secrets/box.js";
import { sqlStorage } from "../sql/index.js";
import type { ControlPlaneStorage } from "../types.js";
import { openSqliteDatabase } from "./database.js";
import { sqliteDialect } from "./dialect.js";

/** The file the control plane's state lives in, inside its data directory. */
export const DATABASE_FILE = "control-plane.sqlite";

/** Opens the embedded backend: one SQLite file in a locked data directory. */
export async function openSqliteStorage(dataDir: string, box: SecretBox): Promise<ControlPlaneStorage> {
  fs.mkdirSync(dataDir, { recursive: true });
  const lock = lockDataDir(dataDir, "control-plane.lock");
  try {
    const db = await openSqliteDatabase(path.join(dataDir, DATABASE_FILE));
    return sqlStorage(db, sqliteDialect, box, async () => {
      await db.destroy();
      lock.release();
    });
  } catch (error) {
    lock.release();
    throw error;
  }
}
