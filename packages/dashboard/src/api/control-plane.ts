import { errorFromBody } from "./errors.js";
import type {
  Deployment,
  Feedback,
  LatestRevisionStatus,
  LogEntry,
  Page,
  Revision,
  Template,
  Trace,
  TraceSeries,
  TraceStats,
  TraceSummary,
  TracingProject,
  Workspace,
} from "./types.js";

/** What the browser holds for the session: the API key and the workspace it acts in. */
export interface Credentials {
  apiKey: string;
  workspaceId: string | null;
}

/** Filters of the deployments list. */
export interface DeploymentFilter {
  nameContains?: string;
  status?: string;
  limit?: number;
  offset?: number;
}

/** A page of log lines and the cursor to continue from. */
export interface LogPage {
  logs: LogEntry[];
  next_offset: string | null;
}

/** Query of a revision's logs. */
export interface LogQuery {
  type: "build" | "deploy";
  offset?: string | null;
  level?: string;
  limit?: number;
  order?: "asc" | "desc";
}

/** Filters of a project's traces. */
export interface TraceFilter {
  status?: string;
  threadId?: string;
  runId?: string;
  /** Text any run of the trace holds (name, tags, metadata, inputs, outputs). */
  text?: string;
  limit?: number;
  offset?: number;
}

/**
 * Where this control plane serves the LangSmith API the dashboard reads feedback from (the
 * SDK's paths, under the prefix agents use as LANGSMITH_ENDPOINT).
 */
export const LANGSMITH_API = "/langsmith-api";

/** The typed client of the control plane's API (same origin; the key in a header, never a cookie). */
export class ControlPlaneClient {
  constructor(
    private readonly credentials: Credentials,
    private readonly baseUrl = "",
  ) {}

  /** Headers every call carries (also used for the agent proxy). */
  headers(): Record<string, string> {
    const h: Record<string, string> = { "X-Api-Key": this.credentials.apiKey };
    if (this.credentials.workspaceId) h["X-Tenant-Id"] = this.credentials.workspaceId;
    return h;
  }

  /** One JSON call; throws ApiError on a non-2xx answer. */
  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        ...this.headers(),
        Accept: "application/json",
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!res.ok) throw errorFromBody(res.status, json);
    return json as T;
  }

  workspaces(): Promise<Workspace[]> {
    return this.request("GET", "/api/v1/workspaces");
  }

  deployments(filter: DeploymentFilter = {}): Promise<Page<Deployment>> {
    const q = new URLSearchParams();
    if (filter.nameContains) q.set("name_contains", filter.nameContains);
    if (filter.status) q.set("status", filter.status);
    q.set("limit", String(filter.limit ?? 100));
    if (filter.offset) q.set("offset", String(filter.offset));
    return this.request("GET", `/v2/deployments?${q}`);
  }

  deployment(id: string): Promise<Deployment> {
    return this.request("GET", `/v2/deployments/${encodeURIComponent(id)}`);
  }

  createDeployment(body: unknown): Promise<Deployment> {
    return this.request("POST", "/v2/deployments", body);
  }

  patchDeployment(id: string, body: unknown): Promise<Deployment> {
    return this.request("PATCH", `/v2/deployments/${encodeURIComponent(id)}`, body);
  }

  deleteDeployment(id: string): Promise<void> {
    return this.request("DELETE", `/v2/deployments/${encodeURIComponent(id)}`);
  }

  revisions(deploymentId: string, limit = 50): Promise<Page<Revision>> {
    return this.request(
      "GET",
      `/v2/deployments/${encodeURIComponent(deploymentId)}/revisions?limit=${limit}`,
    );
  }

  /** The latest revision's status of up to 100 deployments in one request. */
  latestRevisionStatuses(deploymentIds: readonly string[]): Promise<{ resources: LatestRevisionStatus[] }> {
    const ids = deploymentIds.map(encodeURIComponent).join(",");
    return this.request("GET", `/v2/deployments/latest-revision-statuses?deployment_ids=${ids}`);
  }

  /** A new revision with the latest one's inputs. */
  createRevision(deploymentId: string): Promise<Revision> {
    return this.request("POST", `/v2/deployments/${encodeURIComponent(deploymentId)}/revisions`, {});
  }

  /** A LangGraph Studio link for a deployment (its base URL carries a signed, expiring grant). */
  studioLink(
    deploymentId: string,
  ): Promise<{ base_path: string; base_url: string; studio_url: string; expires_at: string }> {
    return this.request("POST", `/v2/deployments/${encodeURIComponent(deploymentId)}/studio-link`);
  }

  redeploy(deploymentId: string, revisionId: string): Promise<Deployment> {
    return this.request("POST", `${revisionPath(deploymentId, revisionId)}/redeploy`);
  }

  interrupt(deploymentId: string, revisionId: string): Promise<Revision> {
    return this.request("POST", `${revisionPath(deploymentId, revisionId)}/interrupt`);
  }

  logs(deploymentId: string, revisionId: string, query: LogQuery): Promise<LogPage> {
    const q = new URLSearchParams({
      type: query.type,
      limit: String(query.limit ?? 500),
      order: query.order ?? "asc",
    });
    if (query.offset) q.set("offset", query.offset);
    if (query.level) q.set("level", query.level);
    return this.request("GET", `${revisionPath(deploymentId, revisionId)}/logs?${q}`);
  }

  tracingProjects(
    filter: { name?: string; limit?: number; offset?: number } = {},
  ): Promise<Page<TracingProject>> {
    const q = new URLSearchParams({ limit: String(filter.limit ?? 100) });
    if (filter.name) q.set("name", filter.name);
    if (filter.offset) q.set("offset", String(filter.offset));
    return this.request("GET", `/v2/tracing-projects?${q}`);
  }

  tracingProject(id: string): Promise<TracingProject> {
    return this.request("GET", `/v2/tracing-projects/${encodeURIComponent(id)}`);
  }

  deleteTracingProject(id: string): Promise<void> {
    return this.request("DELETE", `/v2/tracing-projects/${encodeURIComponent(id)}`);
  }

  traces(projectId: string, filter: TraceFilter = {}): Promise<Page<TraceSummary>> {
    const q = new URLSearchParams({ limit: String(filter.limit ?? 50) });
    if (filter.status) q.set("status", filter.status);
    if (filter.threadId) q.set("thread_id", filter.threadId);
    if (filter.runId) q.set("run_id", filter.runId);
    if (filter.text) q.set("q", filter.text);
    if (filter.offset) q.set("offset", String(filter.offset));
    return this.request("GET", `/v2/tracing-projects/${encodeURIComponent(projectId)}/traces?${q}`);
  }

  traceStats(projectId: string): Promise<TraceStats> {
    return this.request("GET", `/v2/tracing-projects/${encodeURIComponent(projectId)}/stats`);
  }

  /** A project's traces per bucket of a window ending now (the latency and token charts). */
  traceSeries(
    projectId: string,
    window: { startMs: number; endMs: number; buckets: number },
  ): Promise<TraceSeries> {
    const q = new URLSearchParams({
      start_time: new Date(window.startMs).toISOString(),
      end_time: new Date(window.endMs).toISOString(),
      buckets: String(window.buckets),
    });
    return this.request("GET", `/v2/tracing-projects/${encodeURIComponent(projectId)}/series?${q}`);
  }

  /** Feedback on a run (the tracing package's `GET /feedback?run=`, newest first). */
  feedback(runId: string): Promise<Feedback[]> {
    return this.request("GET", `${LANGSMITH_API}/feedback?run=${encodeURIComponent(runId)}&limit=100`);
  }

  trace(projectId: string, traceId: string): Promise<Trace> {
    return this.request(
      "GET",
      `/v2/tracing-projects/${encodeURIComponent(projectId)}/traces/${encodeURIComponent(traceId)}`,
    );
  }

  templates(): Promise<{ resources: Template[] }> {
    return this.request("GET", "/v2/templates");
  }

  uploadUrl(deploymentId: string): Promise<{ upload_url: string; object_path: string }> {
    return this.request("POST", `/v2/deployments/${encodeURIComponent(deploymentId)}/upload-url`);
  }

  /** PUTs a project archive to an upload URL. */
  async upload(uploadUrl: string, archive: Blob): Promise<void> {
    const res = await fetch(uploadUrl, {
      method: "PUT",
      headers: { "Content-Type": "application/gzip" },
      body: archive,
    });
    if (!res.ok) {
      let body: unknown;
      try {
        body = await res.json();
      } catch {
        body = undefined;
      }
      throw errorFromBody(res.status, body);
    }
  }
}

function revisionPath(deploymentId: string, revisionId: string): string {
  return `/v2/deployments/${encodeURIComponent(deploymentId)}/revisions/${encodeURIComponent(revisionId)}`;
}

/** The agent URL of a deployment: its custom_url, else the proxy path on this control plane. */
export function agentUrl(deployment: Deployment): string {
  return deployment.source_config.custom_url ?? `${location.origin}/agents/${deployment.id}`;
}
