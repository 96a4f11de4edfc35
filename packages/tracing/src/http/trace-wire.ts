import { statusOf, type TraceRun } from "../domain/tracing.js";
import type { TracingProject } from "../domain/types.js";
import type { RunView } from "../services/run-views.js";
import type { TraceSummary } from "../storage/types.js";

export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function latencyMs(run: TraceRun): number | null {
  return run.start_ms !== null && run.end_ms !== null ? Math.max(0, run.end_ms - run.start_ms) : null;
}

function metadataOf(run: TraceRun): Record<string, unknown> {
  const metadata = (run.extra as { metadata?: unknown } | null)?.metadata;
  return typeof metadata === "object" && metadata !== null ? (metadata as Record<string, unknown>) : {};
}

/** The ids of a run's ancestors, root first, read from its dotted order (`<time>Z<id>.<time>Z<id>…`). */
export function ancestorsOf(run: TraceRun): string[] {
  if (!run.dotted_order) return [];
  const ids = run.dotted_order.split(".").map((segment) => segment.slice(segment.indexOf("Z") + 1));
  return ids.slice(0, -1);
}

/** When the first streamed token arrived: the time of the run's first `new_token` event. */
function firstTokenTime(events: unknown[]): string | null {
  for (const event of events) {
    const { name, time } = (event ?? {}) as { name?: unknown; time?: unknown };
    if (name === "new_token" && typeof time === "string") return time;
  }
  return null;
}

/** A run in the LangSmith API's shape (what the SDK's listRuns/readRun return). */
export function runToLangSmith(view: RunView) {
  const { run, usage } = view;
  return {
    id: run.id,
    name: run.name ?? "",
    run_type: run.run_type ?? "chain",
    start_time: iso(run.start_ms),
    end_time: iso(run.end_ms),
    status: statusOf(run),
    error: run.error,
    inputs: run.inputs ?? {},
    outputs: run.outputs,
    extra: run.extra ?? {},
    events: run.events,
    tags: run.tags,
    trace_id: run.trace_id,
    dotted_order: run.dotted_order,
    parent_run_id: run.parent_run_id,
    parent_run_ids: ancestorsOf(run),
    session_id: run.project_id,
    child_run_ids: null,
    reference_example_id: run.reference_example_id,
    feedback_stats: view.feedback_stats,
    app_path: view.app_path,
    first_token_time: firstTokenTime(run.events),
    ...usage,
  };
}

/** A tracing project in the LangSmith API's shape (a "session"). */
export function projectToLangSmith(project: TracingProject) {
  return {
    id: project.id,
    name: project.name,
    tenant_id: project.tenant_id,
    start_time: project.created_at,
    end_time: iso(project.end_ms ?? null),
    description: project.description ?? null,
    extra: { metadata: { ...(project.metadata ?? {}), deployment_id: project.deployment_id } },
    reference_dataset_id: project.reference_dataset_id ?? null,
    default_dataset_id: null,
  };
}

/** A trace as Berth's list shows it: the root run's facts and the tree's totals. */
export function traceSummaryToWire(summary: TraceSummary) {
  const { root } = summary;
  return {
    trace_id: root.id,
    name: root.name,
    run_type: root.run_type,
    // A trace whose child failed failed (the root may have caught the error and ended well).
    status: summary.error_count > 0 ? "error" : statusOf(root),
    error: root.error,
    error_count: summary.error_count,
    tags: root.tags,
    start_time: iso(root.start_ms),
    end_time: iso(root.end_ms),
    latency_ms: latencyMs(root),
    thread_id: root.thread_id,
    run_id: root.agent_run_id,
    graph_id: root.graph_id,
    run_count: summary.run_count,
    prompt_tokens: summary.prompt_tokens,
    completion_tokens: summary.completion_tokens,
    total_tokens: summary.total_tokens,
    ...(summary.total_cost !== undefined
      ? {
          prompt_cost: summary.prompt_cost ?? null,
          completion_cost: summary.completion_cost ?? null,
          total_cost: summary.total_cost ?? null,
        }
      : {}),
  };
}

/** A run in Berth's trace view, with its children nested. */
export interface RunNode {
  id: string;
  parent_run_id: string | null;
  name: string | null;
  run_type: string | null;
  status: string;
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
  /** The run's own cost (a model run's; null when unpriced). */
  prompt_cost?: number | null;
  completion_cost?: number | null;
  total_cost?: number | null;
  children: RunNode[];
}

function nodeOf(run: TraceRun, view: RunView | undefined): RunNode {
  return {
    ...(view
      ? {
          prompt_cost: view.usage.prompt_cost,
          completion_cost: view.usage.completion_cost,
          total_cost: view.usage.total_cost,
        }
      : {}),
    id: run.id,
    parent_run_id: run.parent_run_id,
    name: run.name,
    run_type: run.run_type,
    status: statusOf(run),
    error: run.error,
    start_time: iso(run.start_ms),
    end_time: iso(run.end_ms),
    latency_ms: latencyMs(run),
    inputs: run.inputs,
    outputs: run.outputs,
    metadata: metadataOf(run),
    tags: run.tags,
    prompt_tokens: run.prompt_tokens,
    completion_tokens: run.completion_tokens,
    total_tokens: run.total_tokens,
    children: [],
  };
}

/**
 * One trace as a tree: the root run with its descendants nested (in start order). Runs whose
 * parent never arrived hang under `orphans` rather than disappearing.
 */
export function traceToWire(traceId: string, runs: TraceRun[], views: RunView[] = []) {
  const viewOf = new Map(views.map((v) => [v.run.id, v]));
  const nodes = new Map(runs.map((run) => [run.id, nodeOf(run, viewOf.get(run.id))]));
  const tops: RunNode[] = [];
  for (const run of runs) {
    const node = nodes.get(run.id) as RunNode;
    const parent = run.parent_run_id ? nodes.get(run.parent_run_id) : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else tops.push(node);
  }
  const byStart = (a: RunNode, b: RunNode) => (a.start_time ?? "").localeCompare(b.start_time ?? "");
  for (const node of nodes.values()) node.children.sort(byStart);
  const root = tops.find((n) => n.id === traceId) ?? null;
  const rootRun = runs.find((r) => r.id === traceId);
  let prompt = 0;
  let completion = 0;
  let total = 0;
  for (const run of runs) {
    if (run.run_type !== "llm") continue;
    prompt += run.prompt_tokens ?? 0;
    completion += run.completion_tokens ?? 0;
    total += run.total_tokens ?? 0;
  }
  return {
    trace_id: traceId,
    project_id: rootRun?.project_id ?? runs[0]?.project_id ?? null,
    status: runs.some((r) => r.error !== null) ? "error" : rootRun ? statusOf(rootRun) : "pending",
    error_count: runs.filter((r) => r.error !== null).length,
    start_time: rootRun ? iso(rootRun.start_ms) : null,
    end_time: rootRun ? iso(rootRun.end_ms) : null,
    latency_ms: rootRun ? latencyMs(rootRun) : null,
    thread_id: rootRun?.thread_id ?? null,
    run_id: rootRun?.agent_run_id ?? null,
    graph_id: rootRun?.graph_id ?? null,
    run_count: runs.length,
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: total,
    ...costOf(runs, viewOf),
    root,
    orphans: tops.filter((n) => n !== root).sort(byStart),
  };
}

/** The trace's cost: its model runs' own costs summed (absent without views; null when none is priced). */
function costOf(runs: TraceRun[], views: Map<string, RunView>) {
  if (views.size === 0) return {};
  let known = false;
  const sum = { prompt_cost: 0, completion_cost: 0, total_cost: 0 };
  for (const run of runs) {
    const usage = run.run_type === "llm" ? views.get(run.id)?.usage : undefined;
    if (!usage || usage.total_cost === null) continue;
    known = true;
    sum.prompt_cost += usage.prompt_cost ?? 0;
    sum.completion_cost += usage.completion_cost ?? 0;
    sum.total_cost += usage.total_cost;
  }
  return known ? sum : { prompt_cost: null, completion_cost: null, total_cost: null };
}
