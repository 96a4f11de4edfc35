import type { Kysely, Selectable } from "kysely";
import type { Feedback } from "../../domain/feedback.js";
import { ConflictError } from "../../errors.js";
import type { FeedbackStore } from "../types.js";
import type { SqlDialect } from "./dialect.js";
import type { ControlPlaneDb, TracingFeedbackTable } from "./schema.js";

function text(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

function parsed(value: string | null): unknown {
  if (value === null) return null;
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
}

function feedbackOf(row: Selectable<TracingFeedbackTable>): Feedback {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    run_id: row.run_id,
    trace_id: row.trace_id,
    key: row.key,
    score: row.score === null ? null : Number(row.score),
    value: parsed(row.value),
    comment: row.comment,
    correction: parsed(row.correction),
    feedback_source: parsed(row.feedback_source),
    created_at: row.created_at,
  };
}

/** Feedback on runs on Kysely (SQLite or PostgreSQL). */
export class SqlFeedbackStore implements FeedbackStore {
  constructor(
    private readonly db: Kysely<ControlPlaneDb>,
    private readonly dialect: SqlDialect,
  ) {}

  async create(feedback: Feedback): Promise<void> {
    try {
      await this.db
        .insertInto("tracing_feedback")
        .values({
          tenant_id: feedback.tenant_id,
          id: feedback.id,
          run_id: feedback.run_id,
          trace_id: feedback.trace_id,
          key: feedback.key,
          score: feedback.score,
          value: text(feedback.value),
          comment: feedback.comment,
          correction: text(feedback.correction),
          feedback_source: text(feedback.feedback_source),
          created_at: feedback.created_at,
        })
        .execute();
    } catch (error) {
      if (!this.dialect.isUniqueViolation(error)) throw error;
      throw new ConflictError(`Feedback ${feedback.id} already exists.`);
    }
  }

  async list(
    tenantId: string,
    filter: { runIds?: string[] | undefined; keys?: string[] | undefined; limit: number; offset: number },
  ): Promise<Feedback[]> {
    // Only feedback whose run is still kept: a deleted project or retention takes its runs, and
    // their feedback goes out of sight with them.
    let query = this.db
      .selectFrom("tracing_feedback")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom("tracing_runs as r")
            .select("r.id")
            .whereRef("r.tenant_id", "=", "tracing_feedback.tenant_id")
            .whereRef("r.id", "=", "tracing_feedback.run_id"),
        ),
      );
    if (filter.runIds) {
      if (filter.runIds.length === 0) return [];
      query = query.where("run_id", "in", filter.runIds);
    }
    if (filter.keys) {
      if (filter.keys.length === 0) return [];
      query = query.where("key", "in", filter.keys);
    }
    const rows = await query
      .orderBy("created_at", "desc")
      .orderBy("seq", "desc")
      .limit(filter.limit)
      .offset(filter.offset)
      .execute();
    return rows.map(feedbackOf);
  }
}
