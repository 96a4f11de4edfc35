/** Feedback on a run, in LangSmith's shape (`/feedback`): a key with a score and/or a value. */
export interface Feedback {
  id: string;
  tenant_id: string;
  run_id: string;
  trace_id: string | null;
  key: string;
  score: number | null;
  value: unknown;
  comment: string | null;
  correction: unknown;
  feedback_source: unknown;
  created_at: string;
}
