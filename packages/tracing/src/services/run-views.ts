import { costOf, PriceTable } from "../domain/prices.js";
import type { FeedbackStats } from "../domain/sdk-types.js";
import type { TraceRun } from "../domain/tracing.js";
import type { UsageRow } from "../storage/sdk-types.js";
import type { TracingStorage } from "../storage/types.js";

/** Tokens and cost of a run: its own for a model run, its subtree's model runs' sum otherwise. */
export interface RunUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** USD; null when no model run of the subtree has a known price. */
  prompt_cost: number | null;
  completion_cost: number | null;
  total_cost: number | null;
}

/** A run as the read API returns it: with roll-ups, feedback stats and its dashboard page. */
export interface RunView {
  run: TraceRun;
  usage: RunUsage;
  feedback_stats: FeedbackStats | null;
  /** The dashboard's page of the run (the SDK's getRunUrl appends it to the web URL). */
  app_path: string | null;
}

/**
 * The dashboard path of a run, spelt as LangSmith's `app_path`: `/o/<workspace>/projects/p/<project>/r/<run>?trace_id=<trace>`;
 * the dashboard's run link selects the workspace and opens the run in its trace page.
 */
export function appPathOf(run: TraceRun): string | null {
  if (!run.project_id) return null;
  const trace = run.trace_id ?? run.id;
  return `/o/${run.tenant_id}/projects/p/${run.project_id}/r/${run.id}?trace_id=${trace}`;
}

/**
 * Reads what a run does not store itself: token and cost roll-ups over its subtree (LangSmith
 * reports a chain's tokens as those of the model calls under it), costs from the workspace's price
 * table, feedback stats. One query each per page of runs, not per run.
 */
export class RunViews {
  constructor(private readonly storage: TracingStorage) {}

  /** `rollup` false: every run's own tokens and cost (the v2 query's default). */
  async of(tenantId: string, runs: TraceRun[], rollup = true): Promise<RunView[]> {
    if (runs.length === 0) return [];
    const traceIds = [...new Set(runs.map((r) => r.trace_id ?? r.id))];
    const [usage, prices, feedback] = await Promise.all([
      rollup ? this.storage.traces.usageOfTraces(tenantId, traceIds) : Promise.resolve([]),
      this.storage.prices.list(tenantId),
      this.storage.feedback.statsOfRuns(
        tenantId,
        runs.map((r) => r.id),
      ),
    ]);
    const table = new PriceTable(prices);
    const byTrace = new Map<string, UsageRow[]>();
    for (const row of usage) byTrace.set(row.trace_id, [...(byTrace.get(row.trace_id) ?? []), row]);
    return runs.map((run) => ({
      run,
      usage: usageOf(run, byTrace.get(run.trace_id ?? run.id) ?? [], table),
      feedback_stats: feedback.get(run.id) ?? null,
      app_path: appPathOf(run),
    }));
  }
}

function usageOf(run: TraceRun, traceLlms: UsageRow[], table: PriceTable): RunUsage {
  const own: UsageRow = {
    trace_id: run.trace_id ?? run.id,
    dotted_order: run.dotted_order,
    model_name: run.model_name,
    prompt_tokens: run.prompt_tokens ?? 0,
    completion_tokens: run.completion_tokens ?? 0,
    total_tokens: run.total_tokens ?? 0,
  };
  let rows = [own];
  if (run.run_type !== "llm" && run.dotted_order) {
    const prefix = `${run.dotted_order}.`;
    const below = traceLlms.filter((r) => r.dotted_order?.startsWith(prefix));
    if (below.length > 0) rows = below;
  }
  const sum: RunUsage = {
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    prompt_cost: null,
    completion_cost: null,
    total_cost: null,
  };
  for (const row of rows) {
    sum.prompt_tokens += row.prompt_tokens;
    sum.completion_tokens += row.completion_tokens;
    sum.total_tokens += row.total_tokens;
    const price = table.priceFor(row.model_name);
    if (!price) continue;
    const cost = costOf(price, { prompt: row.prompt_tokens, completion: row.completion_tokens });
    sum.prompt_cost = (sum.prompt_cost ?? 0) + cost.prompt;
    sum.completion_cost = (sum.completion_cost ?? 0) + cost.completion;
    sum.total_cost = (sum.total_cost ?? 0) + cost.total;
  }
  return sum;
}
