import type { RunFilter } from "../domain/run-filter.js";
import type { RunStatus, RunWrite, TraceRun } from "../domain/tracing.js";
import type { TracingProject } from "../domain/types.js";
import type {
  DatasetStore,
  DatasetVersionStore,
  FeedbackStore,
  PriceStore,
  ShareStore,
  UsageRow,
} from "./sdk-types.js";

/** Tracing projects (kept when their deployment is deleted, unless asked otherwise). */
export interface TracingProjectStore {
  list(
    tenantId: string,
    filter: {
      name?: string | undefined;
      nameContains?: string | undefined;
      ids?: string[] | undefined;
      /** Experiments of these datasets. */
      referenceDatasetIds?: string[] | undefined;
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
  /** Inserts a project; false when the workspace has one of this name. */
  create(project: TracingProject): Promise<boolean>;
  /** Writes a project's name, description, metadata, dataset and end; false when the name is taken. */
  update(project: TracingProject): Promise<boolean>;
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
  /** Text some run of the trace holds (id, name, tags, metadata, inputs, outputs; case folded). */
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
  /** USD of the tree's priced model runs (null: none priced); set by the service, not the store. */
  prompt_cost?: number | null;
  completion_cost?: number | null;
  total_cost?: number | null;
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
  startBeforeMs?: number | undefined;
  /** Runs made for these dataset examples. */
  exampleIds?: string[] | undefined;
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
  /** Tokens of a project's LLM runs by model (its cost). */
  usageByModel(
    tenantId: string,
    projectId: string,
  ): Promise<Array<Omit<UsageRow, "trace_id" | "dotted_order">>>;
  /** The LLM runs of these traces (token and cost roll-ups); at most 50,000. */
  usageOfTraces(tenantId: string, traceIds: string[]): Promise<UsageRow[]>;
  /** Removes a project's `count` oldest traces, whole; how many runs went. */
  removeOldestTraces(projectId: string, count: number): Promise<number>;
}

/** The tracing package's storage port: projects and their runs, feedback, datasets, prices, shares. */
export interface TracingStorage {
  projects: TracingProjectStore;
  traces: TraceStore;
  feedback: FeedbackStore;
  datasets: DatasetStore;
  datasetVersions: DatasetVersionStore;
  prices: PriceStore;
  shares: ShareStore;
}
