import type { DeploymentStatus } from "../domain/deployment-status.js";
import type { Feedback } from "../domain/feedback.js";
import type { RevisionStatus } from "../domain/revision-status.js";
import type { RunFilter } from "../domain/run-filter.js";
import type { RunStatus, RunWrite, TraceRun } from "../domain/tracing.js";
import type {
  Deployment,
  Listener,
  Revision,
  SourceRevisionConfig,
  TracingProject,
} from "../domain/types.js";

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

/** Tracing projects (kept when their deployment is deleted, unless asked otherwise). */
export interface TracingProjectStore {
  list(
    tenantId: string,
    filter: {
      name?: string | undefined;
      nameContains?: string | undefined;
      ids?: string[] | undefined;
      limit: number;
      offset: number;
    },
  ): Promise<TracingProject[]>;
  get(tenantId: string, id: string): Promise<TracingProject | undefined>;
  /** The tenant's project of this name. */
  byName(tenantId: string, name: string): Promise<TracingProject | undefined>;
  /** The project a deployment traces to (null when it has none any more). */
  ofDeployment(deploymentId: string): Promise<TracingProject | undefined>;
  /** Inserts a project; when the name is taken, answers the existing one instead. */
  ensure(project: TracingProject): Promise<TracingProject>;
  /** Removes a project and all its runs; false when the tenant has no such project. */
  remove(tenantId: string, id: string): Promise<boolean>;
}

/** Filters of a project's traces (its root runs). */
export interface TraceFilter {
  startAfterMs?: number | undefined;
  startBeforeMs?: number | undefined;
  status?: RunStatus | undefined;
  threadId?: string | undefined;
  agentRunId?: string | undefined;
  /** Text some run of the trace holds (name, tags, metadata, inputs, outputs; case folded). */
  text?: string | undefined;
  limit: number;
  offset: number;
}

/** A trace as lists show it: its root run plus totals over the whole tree. */
export interface TraceSummary {
  root: TraceRun;
  run_count: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Failed runs in the tree (the trace failed when any did). */
  error_count: number;
}

/** A project's traces per time bucket (by the root's start): counts, latency, model tokens. */
export interface TraceSeries {
  start_ms: number;
  bucket_ms: number;
  points: Array<{
    start_ms: number;
    traces: number;
    errors: number;
    latency_p50_ms: number | null;
    latency_p99_ms: number | null;
    total_tokens: number;
  }>;
}

/** Totals of a project's traces in a time window (by the root runs' start). */
export interface TraceStats {
  traces: number;
  errors: number;
  pending: number;
  /** Latencies of finished traces, ms: mean, median and 99th percentile (of the latest 10,000). */
  latency_avg_ms: number | null;
  latency_p50_ms: number | null;
  latency_p99_ms: number | null;
  /** Tokens of model runs. */
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** What `POST /runs/query` (the SDK's listRuns) may filter on. */
export interface RunQuery {
  projectIds?: string[] | undefined;
  traceId?: string | undefined;
  parentRunId?: string | undefined;
  ids?: string[] | undefined;
  isRoot?: boolean | undefined;
  runType?: string | undefined;
  error?: boolean | undefined;
  startAfterMs?: number | undefined;
  /** LangSmith filter expressions: on the run, on its trace's root, on any run of its trace. */
  filter?: RunFilter | undefined;
  traceFilter?: RunFilter | undefined;
  treeFilter?: RunFilter | undefined;
  order: "asc" | "desc";
  limit: number;
  offset: number;
}

/** Runs of traces: written in batches by the ingest writer, read by the tracing API. */
export interface TraceStore {
  /**
   * Upserts runs in one transaction: a field a write leaves undefined keeps its stored value, so a
   * `patch` completes the run its `post` created. A write with a `writer_deployment_id` changes
   * no run another writer made (a workspace API key's writes change any); such writes are
   * returned, refused.
   */
  write(runs: RunWrite[], now: number): Promise<RunWrite[]>;
  /** Root runs of a project, newest first, with their trees' totals. */
  traces(tenantId: string, projectId: string, filter: TraceFilter): Promise<TraceSummary[]>;
  /** Totals of a project's traces started in the window. */
  stats(
    tenantId: string,
    projectId: string,
    window: { startAfterMs?: number | undefined; startBeforeMs?: number | undefined },
  ): Promise<TraceStats>;
  /** A project's traces started in the window, per bucket (charts of latency and tokens). */
  series(
    tenantId: string,
    projectId: string,
    window: { startAfterMs: number; startBeforeMs: number; buckets: number },
  ): Promise<TraceSeries>;
  /** Every run of one trace (in dotted order). */
  trace(tenantId: string, traceId: string): Promise<TraceRun[]>;
  /** One run. */
  get(tenantId: string, id: string): Promise<TraceRun | undefined>;
  /** Runs matching a query (the LangSmith read API). */
  query(tenantId: string, query: RunQuery): Promise<TraceRun[]>;
  /** Run count and stored bytes of each project that has runs. */
  projectSizes(): Promise<Array<{ project_id: string; runs: number; bytes: number }>>;
  /** Removes runs that started (or, never started, arrived) before `cutoffMs`; how many went. */
  removeOlderThan(cutoffMs: number): Promise<number>;
  /** Removes runs whose project is gone (written while its deletion was not yet known); how many went. */
  removeOrphans(): Promise<number>;
  /** Removes a project's `count` oldest traces, whole; how many runs went. */
  removeOldestTraces(projectId: string, count: number): Promise<number>;
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

/** Feedback on runs (LangSmith's `/feedback`). */
export interface FeedbackStore {
  /** Inserts feedback; throws ConflictError when the tenant already has its id. */
  create(feedback: Feedback): Promise<void>;
  /** The tenant's feedback, newest first, of some runs and keys. */
  list(
    tenantId: string,
    filter: { runIds?: string[] | undefined; keys?: string[] | undefined; limit: number; offset: number },
  ): Promise<Feedback[]>;
}

/** The control plane's storage port; adapters: SQLite (now), PostgreSQL (later). */
export interface ControlPlaneStorage {
  listeners: ListenerStore;
  logs: LogStore;
  uploads: UploadStore;
  tenants: TenantStore;
  deployments: DeploymentStore;
  revisions: RevisionStore;
  projects: TracingProjectStore;
  traces: TraceStore;
  feedback: FeedbackStore;
  close(): Promise<void>;
}
