import type { Kysely } from "kysely";
import type { LogLine, LogQuery, LogStore } from "../types.js";
import type { SqlDialect } from "./dialect.js";
import type { ControlPlaneDb } from "./schema.js";

/** The revision log store on Kysely (SQLite or PostgreSQL). */
export class SqlLogStore implements LogStore {
  constructor(
    private readonly db: Kysely<ControlPlaneDb>,
    private readonly dialect: SqlDialect,
  ) {}

  async append(lines: Omit<LogLine, "seq">[]): Promise<void> {
    if (lines.length === 0) return;
    // Build output may hold NUL bytes, which the stores refuse (PostgreSQL cannot hold them).
    const clean = lines.map((l) => ({ ...l, message: l.message.replaceAll("\u0000", "\uFFFD") }));
    await this.db.insertInto("revision_logs").values(clean).execute();
  }

  async query(q: LogQuery): Promise<LogLine[]> {
    let query = this.db
      .selectFrom("revision_logs")
      .selectAll()
      .where("tenant_id", "=", q.tenantId)
      .where("deployment_id", "=", q.deploymentId)
      .where("type", "=", q.type);
    if (q.revisionId) query = query.where("revision_id", "=", q.revisionId);
    if (q.afterSeq !== undefined) query = query.where("seq", q.order === "asc" ? ">" : "<", q.afterSeq);
    if (q.level) query = query.where("level", "=", q.level.toUpperCase());
    if (q.query) query = query.where(this.dialect.contains("message", q.query, true));
    if (q.startTime !== undefined) query = query.where("timestamp", ">=", q.startTime);
    if (q.endTime !== undefined) query = query.where("timestamp", "<=", q.endTime);
    const rows = await query.orderBy("seq", q.order).limit(q.limit).execute();
    return rows.map((row) => ({ ...row, type: row.type as LogLine["type"] }));
  }
}
