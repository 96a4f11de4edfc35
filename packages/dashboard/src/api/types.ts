// Wire shapes of the control plane's API, as the dashboard reads them (see /openapi.json).

/** Revision statuses; the settled ones end a revision's life. */
export type RevisionStatus =
  | "CREATING"
  | "QUEUED"
  | "AWAITING_BUILD"
  | "BUILDING"
  | "AWAITING_DEPLOY"
  | "DEPLOYING"
  | "CREATE_FAILED"
  | "BUILD_FAILED"
  | "DEPLOY_FAILED"
  | "DEPLOYED"
  | "INTERRUPTED"
  | "SKIPPED"
  | "UNKNOWN";

/** Where a deployment's code comes from. */
export type Source =
  | "repo_host"
  | "external_container"
  | "internal_container"
  | "internal_source"
  | "internal_template";

/** A secret as returned: the value is always a mask. */
export interface Secret {
  name: string;
  value: string;
}

/** A deployment (`GET /v2/deployments/{id}`). */
export interface Deployment {
  id: string;
  tenant_id: string;
  name: string;
  display_name: string | null;
  source: Source;
  status: string;
  created_at: string;
  updated_at: string;
  latest_revision_id: string | null;
  active_revision_id: string | null;
  secrets: Secret[];
  source_config: {
    repo_url: string | null;
    custom_url: string | null;
    template_id: string | null;
    build_on_push: boolean | null;
    install_command: string | null;
    build_command: string | null;
    resource_spec: Record<string, unknown> | null;
    [key: string]: unknown;
  };
  source_revision_config: {
    repo_ref: string | null;
    graph_config_path: string | null;
    image_uri: string | null;
    source_tarball_path: string | null;
    repo_commit_sha: string | null;
    [key: string]: unknown;
  };
}

/** A revision (`GET /v2/deployments/{id}/revisions`). */
/** A deployment's latest revision, from the batched status read. */
export interface LatestRevisionStatus {
  deployment_id: string;
  revision_id: string;
  status: RevisionStatus;
  updated_at: string;
}

export interface Revision {
  id: string;
  deployment_id: string;
  created_at: string;
  updated_at: string;
  status: RevisionStatus;
  source: Source;
  source_revision_config: Deployment["source_revision_config"];
}

/** A list page: `offset` is the value to send for the next page. */
export interface Page<T> {
  resources: T[];
  offset: number;
}

/** One build or deploy log line. */
export interface LogEntry {
  id: string;
  timestamp: number;
  level: string;
  message: string;
}

/** A workspace the API key reaches. */
export interface Workspace {
  id: string;
  display_name: string;
  created_at: string;
}

/** A bundled template an internal_template deployment can run. */
export interface Template {
  id: string;
  name: string;
  description: string;
  graphs: string[];
}

/** One entry of a 422 body. */
export interface ValidationIssue {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

/** A tracing project (`GET /v2/tracing-projects`). */
export interface TracingProject {
  id: string;
  tenant_id: string;
  name: string;
  deployment_id: string | null;
  created_at: string;
}

/** A run's status as traces report it. */
export type RunStatus = "success" | "error" | "pending";

/** A trace in a project's list: its root run and the tree's totals. */
export interface TraceSummary {
  trace_id: string;
  name: string | null;
  run_type: string | null;
  status: RunStatus;
  error: string | null;
  start_time: string | null;
  end_time: string | null;
  latency_ms: number | null;
  thread_id: string | null;
  run_id: string | null;
  graph_id: string | null;
  run_count: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Failed runs in the tree: a trace whose child failed is failed. */
  error_count?: number;
  tags?: string[];
  /** Cost in USD of the tree's priced model runs (null: none priced). */
  prompt_cost?: number | null;
  completion_cost?: number | null;
  total_cost?: number | null;
}

/** A run of a trace with its children. */
export interface RunNode {
  id: string;
  parent_run_id: string | null;
  name: string | null;
  run_type: string | null;
  status: RunStatus;
  error: string | null;
  start_time: string | null;
  end_time: string | null;
  latency_ms: number | null;
  inputs: unknown;
  outputs: unknown;
  metadata: Record<string, unknown>;
  tags: string[];
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  /** The run's own cost in USD (a priced model run's; null otherwise). */
  prompt_cost?: number | null;
  completion_cost?: number | null;
  total_cost?: number | null;
  children: RunNode[];
}

/** One trace as a tree (`GET /v2/tracing-projects/{id}/traces/{trace_id}`). */
export interface Trace extends Omit<TraceSummary, "name" | "run_type" | "error"> {
  project_id: string | null;
  root: RunNode | null;
  orphans: RunNode[];
}

/** Totals of a project's traces (`GET /v2/tracing-projects/{id}/stats`). */
export interface TraceStats {
  traces: number;
  errors: number;
  pending: number;
  latency_avg_ms: number | null;
  latency_p50_ms: number | null;
  latency_p99_ms: number | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** A project's traces per time bucket (`GET /v2/tracing-projects/{id}/series`). */
export interface TraceSeries {
  start_time: string;
  end_time: string;
  bucket_seconds: number;
  points: Array<{
    start_time: string;
    traces: number;
    errors: number;
    latency_p50_ms: number | null;
    latency_p99_ms: number | null;
    total_tokens: number;
  }>;
}

/** Feedback on a run, in LangSmith's shape (`GET /feedback?run=`). */
export interface Feedback {
  id: string;
  run_id: string;
  key: string;
  score: number | null;
  value: unknown;
  comment: string | null;
  created_at: string;
}
