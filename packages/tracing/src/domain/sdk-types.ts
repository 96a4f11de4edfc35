/** Feedback on a run (or, run_id null, on a project: an experiment's summary score). */
export interface Feedback {
  id: string;
  tenant_id: string;
  run_id: string | null;
  trace_id: string | null;
  session_id: string | null;
  key: string;
  score: number | null;
  value: unknown;
  comment: string | null;
  correction: unknown;
  feedback_source: unknown;
  created_at: string;
  modified_at: string;
}

/** Aggregates of feedback per key, as LangSmith's `feedback_stats`. */
export type FeedbackStats = Record<string, { n: number; avg: number | null; values: Record<string, number> }>;

/** A dataset of examples (what `evaluate()` runs a target over). */
export interface Dataset {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  data_type: string;
  metadata: Record<string, unknown> | null;
  created_at: string;
  modified_at: string;
}

/** One example of a dataset. */
export interface Example {
  id: string;
  tenant_id: string;
  dataset_id: string;
  inputs: unknown;
  outputs: unknown;
  metadata: Record<string, unknown> | null;
  source_run_id: string | null;
  created_at: string;
  modified_at: string;
}

/** A model price: USD per token; `match_pattern` is a regular expression over the model name. */
export interface ModelPrice {
  id: string;
  /** null: shipped with Berth (every workspace's default). */
  tenant_id: string | null;
  name: string;
  match_pattern: string;
  prompt_cost: number;
  completion_cost: number;
  provider: string | null;
  created_at: string;
}

/** A run shared by a public link. */
export interface RunShare {
  tenant_id: string;
  run_id: string;
  share_token: string;
  created_at: string;
}
