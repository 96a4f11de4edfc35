import fs from "node:fs";
import path from "node:path";
import type { Kysely } from "kysely";
import { NotFoundError } from "../errors.js";
import { openPostgresDatabase } from "../storage/postgres/database.js";
import type { ControlPlaneDb } from "../storage/sql/schema.js";
import { SqlTenantStore } from "../storage/sql/tenants.js";
import { openSqliteDatabase } from "../storage/sqlite/database.js";
import { DATABASE_FILE } from "../storage/sqlite/index.js";
import type { KeyRole, Tenant } from "../storage/types.js";
import { type CreatedKey, mintKey } from "./access.js";

/** Where a control plane keeps its state: its data directory, or a PostgreSQL database. */
export interface StateLocation {
  dataDir: string;
  databaseUrl?: string | null | undefined;
}

/** What an offline key is minted with. */
export interface OfflineKeyRequest {
  role: KeyRole;
  description?: string | undefined;
  /** Workspaces it reaches (default: every workspace). */
  workspaceIds?: string[] | undefined;
  expiresInDays?: number | undefined;
}

async function openState(location: StateLocation): Promise<Kysely<ControlPlaneDb>> {
  if (location.databaseUrl) return openPostgresDatabase(location.databaseUrl);
  const file = path.join(location.dataDir, DATABASE_FILE);
  // Opening a missing file would create an empty database: a typo in --data-dir must not.
  if (!fs.existsSync(file)) throw new NotFoundError(`No control plane database at ${file}.`);
  // No data-dir lock: a running control plane holds it, and SQLite (WAL) takes the concurrent write.
  return openSqliteDatabase(file);
}

/**
 * Mints a key straight into a control plane's database, for whoever can read its data directory
 * (recovery of a lost admin key; works while the control plane runs).
 */
export async function mintOfflineKey(
  location: StateLocation,
  request: OfflineKeyRequest,
): Promise<CreatedKey> {
  const db = await openState(location);
  try {
    const tenants = new SqlTenantStore(db);
    const all = await tenants.list();
    const ids = request.workspaceIds ?? all.map((t) => t.id);
    for (const id of ids) {
      if (!all.some((t) => t.id === id)) throw new NotFoundError(`Workspace '${id}' not found.`);
    }
    if (ids.length === 0)
      throw new NotFoundError("This control plane has no workspace yet: start it once first.");
    return await mintKey(tenants, ids, {
      role: request.role,
      description: request.description ?? "minted offline",
      expires_in_days: request.expiresInDays,
    });
  } finally {
    await db.destroy();
  }
}

/** Every workspace of a control plane's database, read offline. */
export async function listWorkspacesOffline(location: StateLocation): Promise<Tenant[]> {
  const db = await openState(location);
  try {
    return await new SqlTenantStore(db).list();
  } finally {
    await db.destroy();
  }
}
