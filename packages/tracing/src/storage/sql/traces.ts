import type { SqlDialect } from "@berth-platform/server-kit";
import { type Kysely, sql } from "kysely";
import type { RunWrite, TraceRun } from "../../domain/tracing.js";
import type { UsageRow } from "../sdk-types.js";
import type { RunQuery, TraceFilter, TraceSeries, TraceStats, TraceStore, TraceSummary } from "../types.js";
import { filterCondition } from "./run-filter-sql.js";
import { distinctRounds, rowOf, runOf } from "./run-rows.js";
import type { TracingDb } from "./schema.js";
import { traceMentions, traceStatusIs } from "./trace-conditions.js";
import { traceSeries } from "./trace-series.js";
import { traceStats } from "./trace-stats.js";

/** Rows per INSERT: ~25 parameters each stays far below SQLite's and PostgreSQL's limits. */
const CHUNK = 400;

/** Columns a later write may fill in (a `patch` after its `post`, or the other way round). */
const MERGED = [
  "project_id",
  "trace_id",
  "parent_run_id",
  "dotted_order",
  "name",
  "run_type",
  "start_ms",
  "end_ms",
  "error",
  "inputs",
  "outputs",
  "extra",
  "events",
  "tags",
  "prompt_tokens",
  "completion_tokens",
  "total_tokens",
  "thread_id",
  "agent_run_id",
  "graph_id",
  "model_name",
  "reference_example_id",
] as const;

/** Traces' runs on Kysely (SQLite or PostgreSQL). */
export class SqlTraceStore implements TraceStore {
  constructor(
    private readonly db: Kysely<TracingDb>,
    private readonly dialect: SqlDialect,
  ) {}

  async write(runs: RunWrite[], now: number): Promise<RunWrite[]> {
    const refused: RunWrite[] = [];
    if (runs.length === 0) return refused;
    await this.db.transaction().execute(async (trx) => {
      for (const round of distinctRounds(runs)) {
        for (let i = 0; i < round.length; i += CHUNK) {
          const chunk = round.slice(i, i + CHUNK);
          const written = await trx
            .insertInto("tracing_runs")
            .values(chunk.map((run) => rowOf(run, now)))
            .onConflict((oc) =>
              oc
                .columns(["tenant_id", "id"])
                .doUpdateSet((eb) => {
                  const set: Record<string, unknown> = {
                    size_bytes: sql`tracing_runs.size_bytes + excluded.size_bytes`,
                    received_ms: eb.ref("excluded.received_ms"),
                  };
                  for (const column of MERGED) {
                    set[column] = eb.fn.coalesce(
                      eb.ref(`excluded.${column}`),
                      eb.ref(`tracing_runs.${column}`),
                    );
                  }
                  return set;
                })
                // An ingest key's write changes only its own deployment's runs; the writer stays.
                .where(
                  sql<boolean>`excluded.writer_deployment_id is null or tracing_runs.writer_deployment_id = excluded.writer_deployment_id`,
                ),
            )
            .returning(["tenant_id", "id"])
            .execute();
          const done = new Set(written.map((row) => `${row.tenant_id}\u0000${row.id}`));
          for (const run of chunk) if (!done.has(`${run.tenant_id}\u0000${run.id}`)) refused.push(run);
        }
      }
    });
    return refused;
  }

  async traces(tenantId: string, projectId: string, filter: TraceFilter): Promise<TraceSummary[]> {
    let query = this.db
      .selectFrom("tracing_runs")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("project_id", "=", projectId)
      .whereRef("trace_id", "=", "id");
    if (filter.startAfterMs !== undefined) query = query.where("start_ms", ">=", filter.startAfterMs);
    if (filter.startBeforeMs !== undefined) query = query.where("start_ms", "<", filter.startBeforeMs);
    if (filter.threadId !== undefined) query = query.where("thread_id", "=", filter.threadId);
    if (filter.agentRunId !== undefined) query = query.where("agent_run_id", "=", filter.agentRunId);
    if (filter.status !== undefined) query = query.where(traceStatusIs(filter.status, tenantId, projectId));
    if (filter.text) query = query.where(traceMentions(filter.text, this.dialect, tenantId, projectId));
    const roots = await query
      .orderBy("start_ms", "desc")
      .orderBy("seq", "desc")
      .limit(filter.limit)
      .offset(filter.offset)
      .execute();
    if (roots.length === 0) return [];
    // Totals of the trees: tokens are counted on model runs only (their parents would repeat them).
    const totals = await this.db
      .selectFrom("tracing_runs")
      .select((eb) => [
        "trace_id",
        eb.fn.countAll<number>().as("runs"),
        sql<number>`sum(case when run_type = 'llm' then coalesce(prompt_tokens, 0) else 0 end)`.as("prompt"),
        sql<number>`sum(case when run_type = 'llm' then coalesce(completion_tokens, 0) else 0 end)`.as(
          "completion",
        ),
        sql<number>`sum(case when run_type = 'llm' then coalesce(total_tokens, 0) else 0 end)`.as("total"),
        sql<number>`sum(case when error is not null then 1 else 0 end)`.as("errors"),
      ])
      .where("tenant_id", "=", tenantId)
      .where(
        "trace_id",
        "in",
        roots.map((r) => r.id),
      )
      .groupBy("trace_id")
      .execute();
    const byTrace = new Map(totals.map((t) => [t.trace_id, t]));
    return roots.map((row) => {
      const t = byTrace.get(row.id);
      return {
        root: runOf(row),
        run_count: Number(t?.runs ?? 1),
        prompt_tokens: Number(t?.prompt ?? 0),
        completion_tokens: Number(t?.completion ?? 0),
        total_tokens: Number(t?.total ?? 0),
        error_count: Number(t?.errors ?? (row.error === null ? 0 : 1)),
      };
    });
  }

  stats(
    tenantId: string,
    projectId: string,
    window: { startAfterMs?: number | undefined; startBeforeMs?: number | undefined },
  ): Promise<TraceStats> {
    return traceStats(this.db, tenantId, projectId, window);
  }

  series(
    tenantId: string,
    projectId: string,
    window: { startAfterMs: number; startBeforeMs: number; buckets: number },
  ): Promise<TraceSeries> {
    return traceSeries(this.db, tenantId, projectId, window);
  }

  async trace(tenantId: string, traceId: string): Promise<TraceRun[]> {
    const rows = await this.db
      .selectFrom("tracing_runs")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("trace_id", "=", traceId)
      .orderBy("dotted_order")
      .orderBy("seq")
      .limit(10_000)
      .execute();
    return rows.map(runOf);
  }

  async get(tenantId: string, id: string): Promise<TraceRun | undefined> {
    const row = await this.db
      .selectFrom("tracing_runs")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .executeTakeFirst();
    return row ? runOf(row) : undefined;
  }

  async query(tenantId: string, q: RunQuery): Promise<TraceRun[]> {
    let query = this.db.selectFrom("tracing_runs").selectAll().where("tenant_id", "=", tenantId);
    if (q.projectIds) {
      if (q.projectIds.length === 0) return [];
      query = query.where("project_id", "in", q.projectIds);
    }
    if (q.ids) {
      if (q.ids.length === 0) return [];
      query = query.where("id", "in", q.ids);
    }
    if (q.traceId !== undefined) query = query.where("trace_id", "=", q.traceId);
    if (q.parentRunId !== undefined) query = query.where("parent_run_id", "=", q.parentRunId);
    if (q.isRoot === true) query = query.whereRef("trace_id", "=", "id");
    if (q.isRoot === false) query = query.whereRef("trace_id", "!=", "id");
    if (q.runType !== undefined) query = query.where("run_type", "=", q.runType);
    if (q.error === true) query = query.where("error", "is not", null);
    if (q.error === false) query = query.where("error", "is", null);
    if (q.startAfterMs !== undefined) query = query.where("start_ms", ">=", q.startAfterMs);
    if (q.startBeforeMs !== undefined) query = query.where("start_ms", "<", q.startBeforeMs);
    if (q.exampleIds) {
      if (q.exampleIds.length === 0) return [];
      query = query.where("reference_example_id", "in", q.exampleIds);
    }
    if (q.filter) query = query.where(filterCondition(q.filter, "tracing_runs", this.dialect));
    if (q.traceFilter) {
      // The run's trace has a root that matches.
      const roots = sql<boolean>`tracing_runs.trace_id in (select root.id from tracing_runs as root where root.tenant_id = ${tenantId} and root.trace_id = root.id and ${filterCondition(q.traceFilter, "root", this.dialect)})`;
      query = query.where(roots);
    }
    if (q.treeFilter) {
      // Some run of the run's trace matches.
      const trees = sql<boolean>`tracing_runs.trace_id in (select other.trace_id from tracing_runs as other where other.tenant_id = ${tenantId} and ${filterCondition(q.treeFilter, "other", this.dialect)})`;
      query = query.where(trees);
    }
    const rows = await query
      .orderBy("start_ms", q.order)
      .orderBy("seq", q.order)
      .limit(q.limit)
      .offset(q.offset)
      .execute();
    return rows.map(runOf);
  }

  async usageByModel(tenantId: string, projectId: string) {
    const rows = await this.db
      .selectFrom("tracing_runs")
      .select([
        "model_name",
        sql<number>`coalesce(sum(prompt_tokens), 0)`.as("prompt"),
        sql<number>`coalesce(sum(completion_tokens), 0)`.as("completion"),
        sql<number>`coalesce(sum(total_tokens), 0)`.as("total"),
      ])
      .where("tenant_id", "=", tenantId)
      .where("project_id", "=", projectId)
      .where("run_type", "=", "llm")
      .groupBy("model_name")
      .execute();
    return rows.map((r) => ({
      model_name: r.model_name,
      prompt_tokens: Number(r.prompt),
      completion_tokens: Number(r.completion),
      total_tokens: Number(r.total),
    }));
  }

  async usageOfTraces(tenantId: string, traceIds: string[]): Promise<UsageRow[]> {
    if (traceIds.length === 0) return [];
    const rows = await this.db
      .selectFrom("tracing_runs")
      .select([
        "trace_id",
        "dotted_order",
        "model_name",
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
      ])
      .where("tenant_id", "=", tenantId)
      .where("trace_id", "in", traceIds)
      .where("run_type", "=", "llm")
      .limit(50_000)
      .execute();
    return rows.map((r) => ({
      trace_id: r.trace_id ?? "",
      dotted_order: r.dotted_order,
      model_name: r.model_name,
      prompt_tokens: Number(r.prompt_tokens ?? 0),
      completion_tokens: Number(r.completion_tokens ?? 0),
      total_tokens: Number(r.total_tokens ?? 0),
    }));
  }

  async projectSizes(): Promise<Array<{ project_id: string; runs: number; bytes: number }>> {
    const rows = await this.db
      .selectFrom("tracing_runs")
      .select((eb) => [
        "project_id",
        eb.fn.countAll<number>().as("runs"),
        eb.fn.sum<number>("size_bytes").as("bytes"),
      ])
      .where("project_id", "is not", null)
      .groupBy("project_id")
      .execute();
    return rows.map((r) => ({
      project_id: r.project_id ?? "",
      runs: Number(r.runs),
      bytes: Number(r.bytes),
    }));
  }

  async removeOlderThan(cutoffMs: number): Promise<number> {
    const result = await this.db
      .deleteFrom("tracing_runs")
      .where((eb) =>
        eb.or([
          eb("start_ms", "<", cutoffMs),
          eb.and([eb("start_ms", "is", null), eb("received_ms", "<", cutoffMs)]),
        ]),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async removeOrphans(): Promise<number> {
    const result = await this.db
      .deleteFrom("tracing_runs")
      .where("project_id", "is not", null)
      .where("project_id", "not in", this.db.selectFrom("tracing_projects").select("id"))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async removeOldestTraces(projectId: string, count: number): Promise<number> {
    const oldest = await this.db
      .selectFrom("tracing_runs")
      .select("id")
      .where("project_id", "=", projectId)
      .whereRef("trace_id", "=", "id")
      .orderBy("start_ms")
      .limit(count)
      .execute();
    if (oldest.length === 0) {
      // Only runs whose root never arrived: the oldest of them go.
      const result = await this.db
        .deleteFrom("tracing_runs")
        .where(
          "seq",
          "in",
          this.db
            .selectFrom("tracing_runs")
            .select("seq")
            .where("project_id", "=", projectId)
            .orderBy("received_ms")
            .limit(count * 10),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    }
    const result = await this.db
      .deleteFrom("tracing_runs")
      .where("project_id", "=", projectId)
      .where(
        "trace_id",
        "in",
        oldest.map((r) => r.id),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
