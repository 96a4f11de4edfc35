import { statusOf } from "../domain/tracing.js";
import type { RunView } from "../services/run-views.js";
import { ancestorsOf, iso } from "./trace-wire.js";

/** The fields `selects` may name (the SDK's RunSelectField); others are refused with a 422. */
export const RUN_SELECTS = [
  "ID",
  "NAME",
  "RUN_TYPE",
  "STATUS",
  "START_TIME",
  "END_TIME",
  "LATENCY_SECONDS",
  "FIRST_TOKEN_TIME",
  "ERROR",
  "ERROR_PREVIEW",
  "EXTRA",
  "METADATA",
  "EVENTS",
  "INPUTS",
  "INPUTS_PREVIEW",
  "OUTPUTS",
  "OUTPUTS_PREVIEW",
  "MANIFEST",
  "PARENT_RUN_IDS",
  "PROJECT_ID",
  "TRACE_ID",
  "THREAD_ID",
  "DOTTED_ORDER",
  "IS_ROOT",
  "REFERENCE_EXAMPLE_ID",
  "REFERENCE_DATASET_ID",
  "TOTAL_TOKENS",
  "PROMPT_TOKENS",
  "COMPLETION_TOKENS",
  "TOTAL_COST",
  "PROMPT_COST",
  "COMPLETION_COST",
  "PROMPT_TOKEN_DETAILS",
  "COMPLETION_TOKEN_DETAILS",
  "PROMPT_COST_DETAILS",
  "COMPLETION_COST_DETAILS",
  "PRICE_MODEL_ID",
  "TAGS",
  "APP_PATH",
  "ATTACHMENTS",
  "THREAD_EVALUATION_TIME",
  "IS_IN_DATASET",
  "LAST_QUEUED_AT",
  "SHARE_URL",
  "FEEDBACK_STATS",
  "LS_USER_ID",
] as const;
export type RunSelect = (typeof RUN_SELECTS)[number];

const PREVIEW = 200;

function preview(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > PREVIEW ? `${text.slice(0, PREVIEW)}…` : text;
}

/** What the generated client's run holds for each select (undefined: Berth has nothing to say). */
function fieldOf(
  view: RunView,
  field: RunSelect,
  extras: { shareUrl?: string | undefined; datasetId?: string | null },
): unknown {
  const { run, usage } = view;
  const extra = (run.extra ?? {}) as Record<string, unknown>;
  switch (field) {
    case "ID":
      return run.id;
    case "NAME":
      return run.name ?? "";
    case "RUN_TYPE":
      return (run.run_type ?? "chain").toUpperCase();
    case "STATUS":
      return statusOf(run).toUpperCase();
    case "START_TIME":
      return iso(run.start_ms);
    case "END_TIME":
      return iso(run.end_ms);
    case "LATENCY_SECONDS":
      return run.start_ms !== null && run.end_ms !== null ? (run.end_ms - run.start_ms) / 1000 : undefined;
    case "ERROR":
      return run.error ?? undefined;
    case "ERROR_PREVIEW":
      return preview(run.error);
    case "EXTRA":
      return extra;
    case "METADATA":
      return (extra.metadata as Record<string, unknown> | undefined) ?? {};
    case "EVENTS":
      return [];
    case "INPUTS":
      return run.inputs ?? {};
    case "INPUTS_PREVIEW":
      return preview(run.inputs);
    case "OUTPUTS":
      return run.outputs ?? undefined;
    case "OUTPUTS_PREVIEW":
      return preview(run.outputs);
    case "PARENT_RUN_IDS":
      return ancestorsOf(run);
    case "PROJECT_ID":
      return run.project_id ?? undefined;
    case "TRACE_ID":
      return run.trace_id ?? undefined;
    case "THREAD_ID":
      return run.thread_id ?? undefined;
    case "DOTTED_ORDER":
      return run.dotted_order ?? undefined;
    case "IS_ROOT":
      return run.trace_id === run.id;
    case "REFERENCE_EXAMPLE_ID":
      return run.reference_example_id ?? undefined;
    case "REFERENCE_DATASET_ID":
      return extras.datasetId ?? undefined;
    case "TOTAL_TOKENS":
      return usage.total_tokens;
    case "PROMPT_TOKENS":
      return usage.prompt_tokens;
    case "COMPLETION_TOKENS":
      return usage.completion_tokens;
    case "TOTAL_COST":
      return usage.total_cost ?? undefined;
    case "PROMPT_COST":
      return usage.prompt_cost ?? undefined;
    case "COMPLETION_COST":
      return usage.completion_cost ?? undefined;
    case "TAGS":
      return run.tags;
    case "APP_PATH":
      return view.app_path ?? undefined;
    case "IS_IN_DATASET":
      return run.reference_example_id !== null;
    case "SHARE_URL":
      return extras.shareUrl;
    case "FEEDBACK_STATS":
      return view.feedback_stats ?? {};
    default:
      return undefined;
  }
}

/** A run in the generated client's shape: only the selected fields (only `id` when none). */
export function runToV2(
  view: RunView,
  selects: readonly RunSelect[],
  extras: { shareUrl?: string | undefined; datasetId?: string | null } = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = { id: view.run.id };
  for (const field of selects) {
    const value = fieldOf(view, field, extras);
    if (value !== undefined) out[field.toLowerCase()] = value;
  }
  return out;
}
