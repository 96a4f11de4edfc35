import { sqlTracingStorage, type TracingDb } from "@berth-platform/tracing";
import type { Kysely } from "kysely";
import type { SecretBox } from "../../secrets/box.js";
import type { ControlPlaneStorage } from "../types.js";
import { SqlDeploymentStore } from "./deployments.js";
import type { SqlDialect } from "./dialect.js";
import { SqlListenerStore } from "./listeners.js";
import { SqlLogStore } from "./logs.js";
import { SqlRevisionStore } from "./revisions.js";
import { RowCodec } from "./rows.js";
import type { ControlPlaneDb } from "./schema.js";
import { SqlTenantStore } from "./tenants.js";
import { SqlUploadStore } from "./uploads.js";

/**
 * The storage port over a migrated Kysely database of either dialect; `close` is the adapter's
 * own (destroy the database, release what it holds).
 */
export function sqlStorage(
  db: Kysely<ControlPlaneDb>,
  dialect: SqlDialect,
  box: SecretBox,
  close: () => Promise<void>,
): ControlPlaneStorage {
  const codec = new RowCodec(box);
  return {
    listeners: new SqlListenerStore(db, dialect),
    logs: new SqlLogStore(db, dialect),
    uploads: new SqlUploadStore(db),
    tenants: new SqlTenantStore(db),
    deployments: new SqlDeploymentStore(db, dialect, codec),
    revisions: new SqlRevisionStore(db, codec),
    // The tracing package's stores over the same database (its tables are a subset of ours).
    ...sqlTracingStorage(db as unknown as Kysely<TracingDb>, dialect),
    close,
  };
}
