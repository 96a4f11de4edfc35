import type { Kysely, Selectable } from "kysely";
import { NotFoundError } from "../../errors.js";
import type { CronFilter, CronRecord, CronStore } from "../types.js";
import { forUpdate, type SqlDialect } from "./dialect.js";
import { containsJson, parseJson } from "./json-match.js";
import type { AgentServerDb, CronsTable } from "./schema.js";

function fromRow(row: Selectable<CronsTable>): CronRecord {
  return {
    cron_id: row.cron_id,
    assistant_id: row.assistant_id,
    thread_id: row.thread_id,
    user_id: row.user_id,
    schedule: row.schedule,
    timezone: row.timezone,
    end_time: row.end_time,
    payload: parseJson(row.payload),
    metadata: parseJson(row.metadata),
    enabled: row.enabled === 1,
    on_run_completed: row.on_run_completed as CronRecord["on_run_completed"],
    next_run_at: row.next_run_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function toRow(cron: CronRecord): CronsTable {
  return {
    ...cron,
    payload: JSON.stringify(cron.payload),
    metadata: JSON.stringify(cron.metadata),
    enabled: cron.enabled ? 1 : 0,
  };
}

const SORT_COLUMNS: Record<string, keyof CronsTable> = {
  cron_id: "cron_id",
  assistant_id: "assistant_id",
  thread_id: "thread_id",
  next_run_date: "next_run_at",
  end_time: "end_time",
  created_at: "created_at",
  updated_at: "updated_at",
};

/** The cron store on either dialect. */
export class SqlCronStore implements CronStore {
  constructor(
    private readonly db: Kysely<AgentServerDb>,
    private readonly dialect: SqlDialect,
  ) {}

  async create(cron: CronRecord): Promise<CronRecord> {
    await this.db.transaction().execute(async (trx) => {
      if (cron.thread_id) {
        const thread = await trx
          .selectFrom("threads")
          .select("thread_id")
          .where("thread_id", "=", cron.thread_id)
          .executeTakeFirst();
        if (!thread) throw new NotFoundError(`Thread with ID ${cron.thread_id} not found`);
      }
      await trx.insertInto("crons").values(toRow(cron)).execute();
    });
    return cron;
  }

  async get(cronId: string): Promise<CronRecord | undefined> {
    const row = await this.db
      .selectFrom("crons")
      .selectAll()
      .where("cron_id", "=", cronId)
      .executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  async update(cronId: string, change: (cron: CronRecord) => CronRecord): Promise<CronRecord | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await forUpdate(
        trx.selectFrom("crons").selectAll().where("cron_id", "=", cronId),
        this.dialect,
      ).executeTakeFirst();
      if (!row) return undefined;
      const updated = change(fromRow(row));
      await trx.updateTable("crons").set(toRow(updated)).where("cron_id", "=", cronId).execute();
      return updated;
    });
  }

  async delete(cronId: string): Promise<boolean> {
    const result = await this.db.deleteFrom("crons").where("cron_id", "=", cronId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async search(
    filter: CronFilter & { limit: number; offset: number; sortBy: string; sortOrder: "asc" | "desc" },
  ): Promise<CronRecord[]> {
    const rows = await this.filtered(filter)
      .orderBy(SORT_COLUMNS[filter.sortBy] ?? "created_at", filter.sortOrder)
      .orderBy("cron_id")
      .execute();
    // Metadata is JSON containment, checked here as for threads.
    return rows
      .map(fromRow)
      .filter((c) => !filter.metadata || containsJson(c.metadata, filter.metadata))
      .slice(filter.offset, filter.offset + filter.limit);
  }

  async count(filter: CronFilter): Promise<number> {
    const rows = await this.filtered(filter).execute();
    return rows.map(fromRow).filter((c) => !filter.metadata || containsJson(c.metadata, filter.metadata))
      .length;
  }

  private filtered(filter: CronFilter) {
    let query = this.db.selectFrom("crons").selectAll();
    if (filter.assistant_id) query = query.where("assistant_id", "=", filter.assistant_id);
    if (filter.thread_id) query = query.where("thread_id", "=", filter.thread_id);
    if (filter.enabled !== undefined && filter.enabled !== null)
      query = query.where("enabled", "=", filter.enabled ? 1 : 0);
    return query;
  }

  async claimDue(nowMs: number, advance: (cron: CronRecord) => number | null): Promise<CronRecord[]> {
    return this.db.transaction().execute(async (trx) => {
      const due = await trx
        .selectFrom("crons")
        .selectAll()
        .where("enabled", "=", 1)
        .where("next_run_at", "is not", null)
        .where("next_run_at", "<=", nowMs)
        .orderBy("next_run_at")
        .execute();
      const claimed: CronRecord[] = [];
      for (const row of due) {
        const cron = fromRow(row);
        // Compare-and-set on the occurrence: only one claimer moves it on.
        const result = await trx
          .updateTable("crons")
          .set({ next_run_at: advance(cron) })
          .where("cron_id", "=", cron.cron_id)
          .where("next_run_at", "=", row.next_run_at)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) > 0) claimed.push(cron);
      }
      return claimed;
    });
  }

  async nextDueAt(): Promise<number | undefined> {
    const row = await this.db
      .selectFrom("crons")
      .select((eb) => eb.fn.min<number | null>("next_run_at").as("next"))
      .where("enabled", "=", 1)
      .executeTakeFirst();
    return row?.next ?? undefined;
  }
}
