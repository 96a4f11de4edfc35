import { type Kysely, sql } from "kysely";
import type { TraceSeries } from "../types.js";
import type { TracingDb } from "./schema.js";
import { traceFailed } from "./trace-conditions.js";

/** Most root runs read for one series: latency percentiles are computed here, not in SQL. */
const MAX_ROOTS = 50_000;

/** The value at fraction `p` of ascending `sorted`, or null when it is empty. */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? null;
}

/**
 * A project's traces per bucket of a window, by the root's start: count, failed (any run of the
 * tree), latency p50/p99 of finished ones, and model tokens (llm runs, by their own start).
 * Percentiles need the values, so roots are read (bounded); tokens are summed by the database.
 */
export async function traceSeries(
  db: Kysely<TracingDb>,
  tenantId: string,
  projectId: string,
  window: { startAfterMs: number; startBeforeMs: number; buckets: number },
): Promise<TraceSeries> {
  const from = window.startAfterMs;
  const bucketMs = Math.max(1, Math.ceil((window.startBeforeMs - from) / window.buckets));
  const inWindow = db
    .selectFrom("tracing_runs")
    .where("tenant_id", "=", tenantId)
    .where("project_id", "=", projectId)
    .where("start_ms", ">=", from)
    .where("start_ms", "<", window.startBeforeMs);
  const roots = await inWindow
    .whereRef("trace_id", "=", "id")
    .select([
      "start_ms",
      "end_ms",
      sql<number>`case when ${traceFailed(tenantId, projectId)} then 1 else 0 end`.as("failed"),
    ])
    .orderBy("start_ms", "desc")
    .limit(MAX_ROOTS)
    .execute();
  // Integer division on both databases (the cast truncates SQLite's real quotient). Literals, not
  // parameters: PostgreSQL matches the grouped expression to the selected one only when equal.
  const bucket = sql<number>`cast((start_ms - ${sql.lit(Math.floor(from))}) / ${sql.lit(bucketMs)} as integer)`;
  const tokens = await inWindow
    .where("run_type", "=", "llm")
    .select([bucket.as("bucket"), sql<number>`coalesce(sum(total_tokens), 0)`.as("total")])
    .groupBy(bucket)
    .execute();
  const points = Array.from({ length: window.buckets }, (_, i) => ({
    start_ms: from + i * bucketMs,
    traces: 0,
    errors: 0,
    latencies: [] as number[],
    total_tokens: 0,
  }));
  for (const root of roots) {
    const point = points[Math.floor((Number(root.start_ms) - from) / bucketMs)];
    if (!point) continue;
    point.traces++;
    if (Number(root.failed) === 1) point.errors++;
    if (root.end_ms !== null) point.latencies.push(Math.max(0, Number(root.end_ms) - Number(root.start_ms)));
  }
  for (const row of tokens) {
    const point = points[Number(row.bucket)];
    if (point) point.total_tokens += Number(row.total);
  }
  return {
    start_ms: from,
    bucket_ms: bucketMs,
    points: points.map(({ latencies, ...point }) => {
      const sorted = latencies.sort((a, b) => a - b);
      return { ...point, latency_p50_ms: percentile(sorted, 0.5), latency_p99_ms: percentile(sorted, 0.99) };
    }),
  };
}
