import type { Kysely } from "kysely";
import type { SecretBox } from "../../secrets/box.js";
import type { ControlPlaneStorage } from "../types.js";
import { SqlDeploymentStore } from "./deployments.js";
import type { SqlDialect } from "./dialect.js";
import { SqlFeedbackStore } from "./feedback.js";
import { SqlListenerStore } from "./listeners.js";
import { SqlLogStore } from "./logs.js";
import { SqlProjectStore } from "./projects.js";
import { SqlRevisionStore } from "./revisions.js";
import { RowCodec } from "./rows.js";
import type { ControlPlaneDb } from "./schema.js";
import { SqlTenantStore } from "./tenants.js";
import { SqlTraceStore } from "./traces.js";
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
    projects: new SqlProjectStore(db, dialect),
    traces: new SqlTraceStore(db, dialect),
    feedback: new SqlFeedbackStore(db, dialect),
    close,
  };
}
