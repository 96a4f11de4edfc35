import type { Generated } from "kysely";

/** Tracing projects. */
export interface TracingProjectsTable {
  seq: Generated<number>;
  id: string;
  tenant_id: string;
  name: string;
  deployment_id: string | null;
  created_at: string;
}

/** Runs of traces sent to tracing projects (migration 0030_tracing; JSON columns hold text). */
export interface TracingRunsTable {
  seq: Generated<number>;
  tenant_id: string;
  id: string;
  project_id: string | null;
  trace_id: string | null;
  parent_run_id: string | null;
  dotted_order: string | null;
  name: string | null;
  run_type: string | null;
  start_ms: number | null;
  end_ms: number | null;
  error: string | null;
  inputs: string | null;
  outputs: string | null;
  extra: string | null;
  tags: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  thread_id: string | null;
  agent_run_id: string | null;
  graph_id: string | null;
  /** The deployment whose ingest key wrote the run (null: a workspace API key). */
  writer_deployment_id: string | null;
  size_bytes: number;
  received_ms: number;
}

/** The tracing package's tables (in the control plane's database when mounted there). */
export interface TracingDb {
  tracing_projects: TracingProjectsTable;
  tracing_runs: TracingRunsTable;
}
