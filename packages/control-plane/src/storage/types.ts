import type { TracingProject, TracingStorage } from "@berth-platform/tracing";
import type { DeploymentStatus } from "../domain/deployment-status.js";
import type { RevisionStatus } from "../domain/revision-status.js";
import type { Deployment, Listener, Revision, SourceRevisionConfig } from "../domain/types.js";

/** A workspace: owner of deployments, projects and keys. */
export interface Tenant {
  id: string;
  name: string;
  created_at: string;
}

/** Filters of `GET /v2/deployments`, all tenant-scoped. */
export interface DeploymentFilter {
  nameContains?: string | undefined;
  name?: string | undefined;
  statuses?: string[] | undefined;
  ids?: string[] | undefined;
  deploymentType?: string | undefined;
  imageVersion?: string | undefined;
  /** true: the deployments a listener runs (a listener_id); false: the others. */
  remoteReconciled?: boolean | undefined;
  /** Tag values a deployment must carry (Berth has no tags: a non-empty list matches nothing). */
  tagValueIds?: string[] | undefined;
  limit: number;
  offset: number;
}

/** What a key may do: `admin` also manages workspaces and keys. */
export type KeyRole = "admin" | "member";

/** An API key as stored (never the key itself). */
export interface ApiKeyRecord {
  id: string;
  description: string | null;
  short_key: string | null;
  role: KeyRole;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  /** The workspaces the key reaches. */
  tenant_ids: string[];
}

/** What a key deletion did: removed it, found none, or refused one reaching other workspaces. */
export type KeyDeletion = "deleted" | "not_found" | "beyond_reach";

/** The details of a new key (its hash is given beside). */
export interface NewApiKey {
  id: string;
  description: string | null;
  short_key: string;
  role: KeyRole;
  expires_at: string | null;
}

/** Tenants and their API keys (only key hashes are stored). */
export interface TenantStore {
  count(): Promise<number>;
  create(tenant: Tenant): Promise<void>;
  /** Tenants with these ids (every tenant without ids), by creation time. */
  list(ids?: readonly string[]): Promise<Tenant[]>;
  /**
   * Registers a key (by its hash) for one or more tenants; without `details` it is an admin key
   * with an id derived from its hash (the bootstrap key).
   */
  addKey(keyHash: string, tenantIds: string[], now: string, details?: NewApiKey): Promise<void>;
  /** Tenant ids a key hash gives access to (empty when the key is unknown). */
  tenantsOfKey(keyHash: string): Promise<string[]>;
  /** The key with this hash, or null. */
  keyByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  /** Keys that reach a tenant, newest first. */
  keysOfTenant(tenantId: string): Promise<ApiKeyRecord[]>;
  /**
   * Removes the key with this id if it reaches `tenantId` and no workspace outside `reach`
   * (checked in the same transaction as the delete).
   */
  deleteKey(id: string, tenantId: string, reach: readonly string[]): Promise<KeyDeletion>;
  /** Records a use of the key. */
  touchKey(keyHash: string, now: string): Promise<void>;
}

/** Deployments; every read is scoped by tenant so a foreign id looks exactly like a missing one. */
export interface DeploymentStore {
  /** Inserts the deployment, its first revision and its tracing project; 409 on a taken name. */
  create(deployment: Deployment, revision: Revision, project: TracingProject): Promise<void>;
  get(tenantId: string, id: string): Promise<Deployment | undefined>;
  list(tenantId: string, filter: DeploymentFilter): Promise<Deployment[]>;
  /** Saves deployment-level changes (no new revision). */
  save(deployment: Deployment): Promise<void>;
  /**
   * Saves the deployment and inserts `revision` as its newest one, marking older revisions that
   * are only waiting as SKIPPED, in one transaction; the ids of those it skipped.
   */
  saveWithRevision(deployment: Deployment, revision: Revision): Promise<string[]>;
  /** Deployments in a status, across tenants (for the provisioner). */
  listByStatus(status: DeploymentStatus): Promise<Deployment[]>;
  /** Compare-and-set of a deployment's status; false when it was not in `from`. */
  setStatus(id: string, from: DeploymentStatus, to: DeploymentStatus, now: string): Promise<boolean>;
  /** The tenant's deployments assigned to a listener (`source_config.listener_id`), oldest first. */
  listByListener(tenantId: string, listenerId: string): Promise<Deployment[]>;
  /** Removes the deployment and its revisions (and its tracing project when asked). */
  remove(id: string, removeProject: boolean): Promise<void>;
}

/** Revisions of deployments. */
export interface RevisionStore {
  /** How many revisions are in each status, across tenants (for /metrics). */
  countByStatus(): Promise<Record<string, number>>;
  /** Newest first, optionally filtered by status. */
  list(
    tenantId: string,
    deploymentId: string,
    filter: { statuses?: string[] | undefined; limit: number; offset: number },
  ): Promise<Revision[]>;
  get(tenantId: string, deploymentId: string, id: string): Promise<Revision | undefined>;
  /** Compare-and-set of a revision's status; false when it was not in `from`. */
  setStatus(id: string, from: RevisionStatus, to: RevisionStatus, now: string): Promise<boolean>;
  /** Revisions waiting in CREATING or QUEUED, oldest first, across tenants (for the provisioner). */
  listWaiting(): Promise<Revision[]>;
  /** Revisions in any of `statuses`, oldest first, across tenants (for the runtime's work). */
  listInStatus(statuses: readonly RevisionStatus[]): Promise<Revision[]>;
  /** Records what a build resolved (the commit of a repo_host revision). */
  setSourceRevisionConfig(id: string, config: SourceRevisionConfig, now: string): Promise<void>;
  /** Statuses of all revisions of a deployment (to know whether one is in progress). */
  statusesOf(deploymentId: string): Promise<Array<{ id: string; status: RevisionStatus }>>;
  /** The latest revision of each of the tenant's deployments in `deploymentIds` that has one. */
  latestOf(tenantId: string, deploymentIds: readonly string[]): Promise<LatestRevisionStatus[]>;
}

/** A deployment's latest revision: its id, status and last change (the dashboard's list column). */
export interface LatestRevisionStatus {
  deployment_id: string;
  revision_id: string;
  status: RevisionStatus;
  updated_at: string;
}

/** A source upload slot minted by `POST /v2/deployments/{id}/upload-url`. */
export interface Upload {
  object_path: string;
  tenant_id: string;
  deployment_id: string;
  /** SHA-256 of the upload URL's token (the token itself is never stored). */
  token_hash: string;
  expires_at: string;
  size: number | null;
  completed_at: string | null;
  created_at: string;
}

/** Upload slots: minted, then completed once by a PUT of the archive. */
export interface UploadStore {
  create(upload: Upload): Promise<void>;
  byTokenHash(tokenHash: string): Promise<Upload | undefined>;
  /** Marks a slot completed; false when it was already used. */
  complete(objectPath: string, size: number, now: string): Promise<boolean>;
  /** Object paths of a deployment's completed uploads. */
  completedPaths(tenantId: string, deploymentId: string): Promise<string[]>;
}

/** One line of a revision's build or deploy log. */
export interface LogLine {
  /** Position in the log store: ids grow with time, cursors are built from them. */
  seq: number;
  tenant_id: string;
  deployment_id: string;
  revision_id: string;
  type: "build" | "deploy";
  /** Epoch ms. */
  timestamp: number;
  level: string;
  message: string;
}

/** What a log query asks for. */
export interface LogQuery {
  tenantId: string;
  deploymentId: string;
  revisionId?: string | undefined;
  type: "build" | "deploy";
  order: "asc" | "desc";
  limit: number;
  /** Continue after (asc) or before (desc) this seq. */
  afterSeq?: number | undefined;
  level?: string | undefined;
  query?: string | undefined;
  startTime?: number | undefined;
  endTime?: number | undefined;
}

/** Build and deploy logs of revisions (written by the provisioner and, later, the runtime). */
export interface LogStore {
  append(lines: Omit<LogLine, "seq">[]): Promise<void>;
  query(query: LogQuery): Promise<LogLine[]>;
}

/** Data-plane listeners of a tenant. */
export interface ListenerStore {
  /**
   * Inserts a listener with the hash of its key; throws ConflictError when the tenant already has
   * its compute_id.
   */
  create(listener: Listener, keyHash: string): Promise<void>;
  /** A listener and its key hash by id alone (the listener-facing API authenticates with both). */
  byIdWithKey(id: string): Promise<{ listener: Listener; keyHash: string | null } | undefined>;
  /** Replaces a listener's key hash; false when there is no such listener in the tenant. */
  setKeyHash(tenantId: string, id: string, keyHash: string, now: string): Promise<boolean>;
  /** Records a poll of the listener. */
  touch(id: string, now: string): Promise<void>;
  list(tenantId: string, options: { limit: number; offset: number }): Promise<Listener[]>;
  get(tenantId: string, id: string): Promise<Listener | undefined>;
  update(listener: Listener): Promise<void>;
  delete(tenantId: string, id: string): Promise<boolean>;
}

/** The control plane's storage port; adapters: SQLite (now), PostgreSQL (later). */
export interface ControlPlaneStorage extends TracingStorage {
  listeners: ListenerStore;
  logs: LogStore;
  uploads: UploadStore;
  tenants: TenantStore;
  deployments: DeploymentStore;
  revisions: RevisionStore;
  close(): Promise<void>;
}
