import type { Generated } from "kysely";

/** Tracing projects. */
export interface TracingProjectsTable {
  seq: Generated<number>;
  id: string;
  tenant_id: string;
  name: string;
  deployment_id: string | null;
  created_at: string;
  /** 0040: what the SDK's createProject/updateProject set (extra holds JSON text). */
  description: string | null;
  extra: string | null;
  reference_dataset_id: string | null;
  end_ms: number | null;
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
  /** JSON text: the run's events (0043). */
  events: string | null;
  tags: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  thread_id: string | null;
  agent_run_id: string | null;
  graph_id: string | null;
  /** The model of an LLM run, for its cost (0040). */
  model_name: string | null;
  /** The dataset example an experiment's run was made for (0040). */
  reference_example_id: string | null;
  /** The deployment whose ingest key wrote the run (null: a workspace API key). */
  writer_deployment_id: string | null;
  size_bytes: number;
  received_ms: number;
}

/** Feedback on runs or projects (0033, 0040; value, correction, feedback_source hold JSON text). */
export interface TracingFeedbackTable {
  seq: Generated<number>;
  tenant_id: string;
  id: string;
  /** The empty string for feedback on a project (an experiment's summary). */
  run_id: string;
  trace_id: string | null;
  session_id: string | null;
  key: string;
  score: number | null;
  value: string | null;
  comment: string | null;
  correction: string | null;
  feedback_source: string | null;
  created_at: string;
  modified_at: string | null;
}

/** Datasets (0040; metadata holds JSON text). */
export interface TracingDatasetsTable {
  seq: Generated<number>;
  tenant_id: string;
  id: string;
  name: string;
  description: string | null;
  data_type: string;
  metadata: string | null;
  created_at: string;
  modified_at: string;
}

/** Examples of datasets (0040; JSON columns hold text). */
export interface TracingExamplesTable {
  seq: Generated<number>;
  tenant_id: string;
  id: string;
  dataset_id: string;
  inputs: string;
  outputs: string | null;
  metadata: string | null;
  source_run_id: string | null;
  created_at: string;
  modified_at: string;
}

/**
 * Every state an example had (0042): one row per add, change or removal (`deleted` 1), stamped with
 * the dataset version it made (`version_at`, the change's ISO time). A dataset's versions are its
 * distinct stamps; its examples as of a time are each example's last row at or before it.
 */
export interface TracingExampleVersionsTable {
  seq: Generated<number>;
  tenant_id: string;
  dataset_id: string;
  example_id: string;
  version_at: string;
  deleted: number;
  inputs: string | null;
  outputs: string | null;
  metadata: string | null;
  source_run_id: string | null;
  created_at: string;
  modified_at: string;
}

/** Tags naming versions of a dataset (0042): one version per tag, moved by re-tagging. */
export interface TracingDatasetTagsTable {
  seq: Generated<number>;
  tenant_id: string;
  dataset_id: string;
  tag: string;
  as_of: string;
}

/** A workspace's model prices (0040): USD per token, the model name matched by a regex. */
export interface TracingModelPricesTable {
  seq: Generated<number>;
  tenant_id: string;
  id: string;
  name: string;
  match_pattern: string;
  prompt_cost: number;
  completion_cost: number;
  provider: string | null;
  created_at: string;
}

/** Runs shared by a public link (0040). */
export interface TracingRunSharesTable {
  seq: Generated<number>;
  tenant_id: string;
  run_id: string;
  share_token: string;
  created_at: string;
}

/** The tracing package's tables (in the control plane's database when mounted there). */
export interface TracingDb {
  tracing_projects: TracingProjectsTable;
  tracing_runs: TracingRunsTable;
  tracing_feedback: TracingFeedbackTable;
  tracing_datasets: TracingDatasetsTable;
  tracing_examples: TracingExamplesTable;
  tracing_example_versions: TracingExampleVersionsTable;
  tracing_dataset_tags: TracingDatasetTagsTable;
  tracing_model_prices: TracingModelPricesTable;
  tracing_run_shares: TracingRunSharesTable;
}
