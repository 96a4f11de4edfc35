import { type Kysely, sql } from "kysely";
import type { TraceStats } from "../types.js";
import type { TracingDb } from "./schema.js";
import { traceFailed, traceStatusIs } from "./trace-conditions.js";
import { percentile } from "./trace-series.js";

/** Most recent root runs read for the latency percentiles (computed here, not in SQL). */
const MAX_ROOTS = 10_000;

/**
 * A project's totals over a window of root start times: traces, failed and pending ones, latency
 * (average in SQL, p50/p99 from the newest roots) and model tokens (llm runs, by their own start).
 */
export async function traceStats(
  db: Kysely<TracingDb>,
  tenantId: string,
  projectId: string,
  window: { startAfterMs?: number | undefined; startBeforeMs?: number | undefined },
): Promise<TraceStats> {
  let base = db
    .selectFrom("tracing_runs")
    .where("tenant_id", "=", tenantId)
    .where("project_id", "=", projectId);
  if (window.startAfterMs !== undefined) base = base.where("start_ms", ">=", window.startAfterMs);
  if (window.startBeforeMs !== undefined) base = base.where("start_ms", "<", window.startBeforeMs);
  const roots = base.whereRef("trace_id", "=", "id");
  const counts = await roots
    .select((eb) => [
      eb.fn.countAll<number>().as("traces"),
      sql<number>`sum(case when ${traceFailed(tenantId, projectId)} then 1 else 0 end)`.as("errors"),
      sql<number>`sum(case when ${traceStatusIs("pending", tenantId, projectId)} then 1 else 0 end)`.as(
        "pending",
      ),
      sql<number | null>`avg(case when end_ms is not null then end_ms - start_ms end)`.as("avg"),
    ])
    .executeTakeFirst();
  const tokens = await base
    .where("run_type", "=", "llm")
    .select([
      sql<number>`coalesce(sum(prompt_tokens), 0)`.as("prompt"),
      sql<number>`coalesce(sum(completion_tokens), 0)`.as("completion"),
      sql<number>`coalesce(sum(total_tokens), 0)`.as("total"),
    ])
    .executeTakeFirst();
  const latencies = (
    await roots
      .select(sql<number>`end_ms - start_ms`.as("ms"))
      .where("end_ms", "is not", null)
      .where("start_ms", "is not", null)
      .orderBy("start_ms", "desc")
      .limit(MAX_ROOTS)
      .execute()
  )
    .map((r) => Number(r.ms))
    .sort((a, b) => a - b);
  return {
    traces: Number(counts?.traces ?? 0),
    errors: Number(counts?.errors ?? 0),
    pending: Number(counts?.pending ?? 0),
    latency_avg_ms: counts?.avg === null || counts?.avg === undefined ? null : Math.round(Number(counts.avg)),
    latency_p50_ms: percentile(latencies, 0.5),
    latency_p99_ms: percentile(latencies, 0.99),
    prompt_tokens: Number(tokens?.prompt ?? 0),
    completion_tokens: Number(tokens?.completion ?? 0),
    total_tokens: Number(tokens?.total ?? 0),
  };
}
