import type { TracingDb } from "@berth-platform/tracing";
import type { Generated } from "kysely";

/**
 * Row shapes of the control plane's tables, the same on SQLite and PostgreSQL (JSON columns hold
 * text; `secrets` hold sealed text; 64-bit integers come back as numbers on both).
 */
export interface TenantsTable {
  id: string;
  name: string;
  created_at: string;
}

/** API keys by their SHA-256 hash; the key itself is never stored. */
export interface ApiKeysTable {
  key_hash: string;
  created_at: string;
  /** Public id (keys made before issue 13 got the first 32 hex digits of their hash). */
  id: string | null;
  /** What the key is for, as its creator described it. */
  description: string | null;
  /** The key's first characters, enough to recognise it in a list. */
  short_key: string | null;
  /** `admin` manages workspaces and keys; `member` only uses the deployments API. */
  role: string;
  expires_at: string | null;
  last_used_at: string | null;
}

/** Which tenants a key gives access to. */
export interface ApiKeyTenantsTable {
  key_hash: string;
  tenant_id: string;
}

/** Deployments. */
export interface DeploymentsTable {
  seq: Generated<number>;
  id: string;
  tenant_id: string;
  name: string;
  display_name: string | null;
  source: string;
  source_config: string;
  source_revision_config: string;
  secrets: string;
  secret_references: string;
  status: string;
  latest_revision_id: string | null;
  active_revision_id: string | null;
  image_version: string | null;
  delete_tracing_project: number;
  /** `neutral` or `real` (migration 0013_vocabulary). */
  vocabulary: string;
  /** `source_config.listener_id`, as a column so a listener's poll finds its deployments (0020). */
  listener_id: string | null;
  created_at: string;
  updated_at: string;
}

/** Revisions, with the inputs each was made from. */
export interface RevisionsTable {
  seq: Generated<number>;
  id: string;
  deployment_id: string;
  tenant_id: string;
  source: string;
  status: string;
  source_revision_config: string;
  resource_spec: string | null;
  install_command: string | null;
  build_command: string | null;
  secrets: string;
  secret_references: string;
  created_at: string;
  updated_at: string;
}

/** Source upload slots (see storage/types.ts Upload). */
export interface UploadsTable {
  object_path: string;
  tenant_id: string;
  deployment_id: string;
  token_hash: string;
  expires_at: string;
  size: number | null;
  completed_at: string | null;
  created_at: string;
}

/** Revision log lines. */
export interface RevisionLogsTable {
  seq: Generated<number>;
  tenant_id: string;
  deployment_id: string;
  revision_id: string;
  type: string;
  timestamp: number;
  level: string;
  message: string;
}

/** Data-plane listeners (compute_config holds JSON). */
export interface ListenersTable {
  seq: Generated<number>;
  id: string;
  tenant_id: string;
  version: string | null;
  compute_type: string;
  compute_id: string;
  compute_config: string;
  created_at: string;
  updated_at: string;
  /** SHA-256 of the listener's key (null: made before keys existed; rotate one to connect). */
  key_hash: string | null;
  /** When the listener last polled its desired state. */
  last_seen_at: string | null;
  /** `neutral` or `real`: the names its create used (migration 0051_listener_vocabulary). */
  vocabulary: string;
}

/** The whole database. */
export interface ControlPlaneDb extends TracingDb {
  listeners: ListenersTable;
  revision_logs: RevisionLogsTable;
  uploads: UploadsTable;
  tenants: TenantsTable;
  api_keys: ApiKeysTable;
  api_key_tenants: ApiKeyTenantsTable;
  deployments: DeploymentsTable;
  revisions: RevisionsTable;
}
