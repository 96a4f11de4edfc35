import fs from "node:fs";
import path from "node:path";
import { lockDataDir } from "@berth/server-kit";
import type { SecretBox } from "../../secrets/box.js";
import type { ControlPlaneStorage } from "../types.js";
import { openSqliteDatabase } from "./database.js";
import { SqliteDeploymentStore } from "./deployments.js";
import { SqliteListenerStore } from "./listeners.js";
import { SqliteLogStore } from "./logs.js";
import { SqliteProjectStore } from "./projects.js";
import { SqliteRevisionStore } from "./revisions.js";
import { RowCodec } from "./rows.js";
import { SqliteTenantStore } from "./tenants.js";
import { SqliteUploadStore } from "./uploads.js";

/** The file the control plane's state lives in, inside its data directory. */
export const DATABASE_FILE = "control-plane.sqlite";

/** Opens the embedded backend: one SQLite file in a locked data directory. */
export async function openSqliteStorage(dataDir: string, box: SecretBox): Promise<ControlPlaneStorage> {
  fs.mkdirSync(dataDir, { recursive: true });
  const lock = lockDataDir(dataDir, "control-plane.lock");
  try {
    const db = await openSqliteDatabase(path.join(dataDir, DATABASE_FILE));
    const codec = new RowCodec(box);
    return {
      listeners: new SqliteListenerStore(db),
      logs: new SqliteLogStore(db),
      uploads: new SqliteUploadStore(db),
      tenants: new SqliteTenantStore(db),
      deployments: new SqliteDeploymentStore(db, codec),
      revisions: new SqliteRevisionStore(db, codec),
      projects: new SqliteProjectStore(db),
      async close() {
        await db.destroy();
        lock.release();
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}
