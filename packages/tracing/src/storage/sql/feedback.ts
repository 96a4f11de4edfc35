import type { Kysely, Selectable } from "kysely";
import type { Feedback, FeedbackStats } from "../../domain/sdk-types.js";
import type { FeedbackStore } from "../sdk-types.js";
import { parseJsonText } from "./run-rows.js";
import type { TracingDb, TracingFeedbackTable } from "./schema.js";

/** Feedback on Kysely (SQLite or PostgreSQL); project feedback has run_id "" in its row. */
export class SqlFeedbackStore implements FeedbackStore {
  constructor(private readonly db: Kysely<TracingDb>) {}

  async put(feedback: Feedback): Promise<void> {
    const row = {
      tenant_id: feedback.tenant_id,
      id: feedback.id,
      run_id: feedback.run_id ?? "",
      trace_id: feedback.trace_id,
      session_id: feedback.session_id,
      key: feedback.key,
      score: feedback.score,
      value: json(feedback.value),
      comment: feedback.comment,
      correction: json(feedback.correction),
      feedback_source: json(feedback.feedback_source),
      created_at: feedback.created_at,
      modified_at: feedback.modified_at,
    };
    const { tenant_id: _t, id: _i, created_at: _c, ...changes } = row;
    await this.db
      .insertInto("tracing_feedback")
      .values(row)
      .onConflict((oc) => oc.columns(["tenant_id", "id"]).doUpdateSet(changes))
      .execute();
  }

  async get(tenantId: string, id: string): Promise<Feedback | undefined> {
    const row = await this.db
      .selectFrom("tracing_feedback")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .executeTakeFirst();
    return row ? feedbackOf(row) : undefined;
  }

  async list(
    tenantId: string,
    filter: { runIds?: string[]; keys?: string[]; sessionIds?: string[]; limit: number; offset: number },
  ): Promise<Feedback[]> {
    let query = this.db.selectFrom("tracing_feedback").selectAll().where("tenant_id", "=", tenantId);
    if (filter.runIds) {
      if (filter.runIds.length === 0) return [];
      query = query.where("run_id", "in", filter.runIds);
    }
    if (filter.keys) {
      if (filter.keys.length === 0) return [];
      query = query.where("key", "in", filter.keys);
    }
    if (filter.sessionIds) {
      if (filter.sessionIds.length === 0) return [];
      const ids = filter.sessionIds;
      // Feedback on the project itself, or on one of its runs.
      query = query.where((eb) =>
        eb.or([
          eb("session_id", "in", ids),
          eb(
            "run_id",
            "in",
            eb
              .selectFrom("tracing_runs")
              .select("id")
              .where("tenant_id", "=", tenantId)
              .where("project_id", "in", ids),
          ),
        ]),
      );
    }
    const rows = await query.orderBy("seq", "desc").limit(filter.limit).offset(filter.offset).execute();
    return rows.map(feedbackOf);
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom("tracing_feedback")
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async removeOrphans(): Promise<number> {
    const result = await this.db
      .deleteFrom("tracing_feedback")
      .where("run_id", "<>", "")
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("tracing_runs as r")
              .select("r.id")
              .whereRef("r.tenant_id", "=", "tracing_feedback.tenant_id")
              .whereRef("r.id", "=", "tracing_feedback.run_id"),
          ),
        ),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async statsOfRuns(tenantId: string, runIds: string[]): Promise<Map<string, FeedbackStats>> {
    const out = new Map<string, FeedbackStats>();
    if (runIds.length === 0) return out;
    const rows = await this.db
      .selectFrom("tracing_feedback")
      .select(["run_id", "key", "score", "value"])
      .where("tenant_id", "=", tenantId)
      .where("run_id", "in", runIds)
      .limit(100_000)
      .execute();
    const byRun = new Map<string, typeof rows>();
    for (const row of rows) byRun.set(row.run_id, [...(byRun.get(row.run_id) ?? []), row]);
    for (const [runId, list] of byRun) out.set(runId, statsOf(list));
    return out;
  }

  async statsOfProject(tenantId: string, projectId: string): Promise<FeedbackStats> {
    const runs = this.db
      .selectFrom("tracing_runs")
      .select("id")
      .where("tenant_id", "=", tenantId)
      .where("project_id", "=", projectId);
    const rows = await this.db
      .selectFrom("tracing_feedback")
      .select(["key", "score", "value"])
      .where("tenant_id", "=", tenantId)
      .where((eb) => eb.or([eb("run_id", "in", runs), eb("session_id", "=", projectId)]))
      .limit(100_000)
      .execute();
    return statsOf(rows);
  }
}

interface Tally {
  n: number;
  sum: number;
  scored: number;
  values: Record<string, number>;
}

/** Per-key stats of feedback rows: count, mean score (of those with one), counts of string values. */
function statsOf(rows: Array<{ key: string; score: number | null; value: string | null }>): FeedbackStats {
  const tallies = new Map<string, Tally>();
  for (const row of rows) {
    const tally = tallies.get(row.key) ?? { n: 0, sum: 0, scored: 0, values: {} };
    tallies.set(row.key, tally);
    tally.n += 1;
    if (row.score !== null) {
      tally.sum += Number(row.score);
      tally.scored += 1;
    }
    const value = parseJsonText(row.value);
    if (typeof value === "string") tally.values[value] = (tally.values[value] ?? 0) + 1;
  }
  const stats: FeedbackStats = {};
  for (const [key, t] of tallies) {
    stats[key] = { n: t.n, avg: t.scored > 0 ? t.sum / t.scored : null, values: t.values };
  }
  return stats;
}

function json(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

function feedbackOf(row: Selectable<TracingFeedbackTable>): Feedback {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    run_id: row.run_id === "" ? null : row.run_id,
    trace_id: row.trace_id,
    session_id: row.session_id,
    key: row.key,
    score: row.score === null ? null : Number(row.score),
    value: parseJsonText(row.value),
    comment: row.comment,
    correction: parseJsonText(row.correction),
    feedback_source: parseJsonText(row.feedback_source),
    created_at: row.created_at,
    modified_at: row.modified_at ?? row.created_at,
  };
}
