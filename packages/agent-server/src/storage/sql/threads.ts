import type { JsonObject, Thread } from "@berth-platform/schemas";
import type { Kysely, Selectable } from "kysely";
import { ConflictError } from "../../errors.js";
import type { ThreadFilter, ThreadStore } from "../types.js";
import { forUpdate, type SqlDialect } from "./dialect.js";
import { containsJson, parseJson } from "./json-match.js";
import { PreparedStatement } from "./prepared.js";
import type { AgentServerDb, ThreadsTable } from "./schema.js";

/** Thread rows ↔ Thread records. */
export function threadFromRow(row: Selectable<ThreadsTable>): Thread {
  return {
    thread_id: row.thread_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    state_updated_at: row.state_updated_at,
    metadata: parseJson(row.metadata),
    status: row.status as Thread["status"],
    config: parseJson(row.config),
    values: parseJson(row.values),
    interrupts: parseJson(row.interrupts),
  };
}

/** Turns a Thread record into a row. */
export function threadToRow(thread: Thread): ThreadsTable {
  return {
    thread_id: thread.thread_id,
    created_at: thread.created_at,
    updated_at: thread.updated_at,
    state_updated_at: thread.state_updated_at,
    metadata: JSON.stringify(thread.metadata),
    status: thread.status,
    config: JSON.stringify(thread.config),
    values: thread.values === null || thread.values === undefined ? null : JSON.stringify(thread.values),
    interrupts: JSON.stringify(thread.interrupts),
  };
}

/** A thread row's columns in the prepared insert's argument order. */
const THREAD_COLUMNS = [
  "thread_id",
  "created_at",
  "updated_at",
  "state_updated_at",
  "metadata",
  "status",
  "config",
  "values",
  "interrupts",
] as const satisfies ReadonlyArray<keyof ThreadsTable>;

/** The thread store on either dialect. */
export class SqlThreadStore implements ThreadStore {
  /** Read on every run (create and join), so compiled once per store (the SQL is the dialect's). */
  private readonly selectThread = new PreparedStatement((db, threadId: string) =>
    db.selectFrom("threads").selectAll().where("thread_id", "=", threadId),
  );

  /** A run's create needs the thread's config alone, not its values (the full message history). */
  private readonly selectConfig = new PreparedStatement((db, threadId: string) =>
    db.selectFrom("threads").select("config").where("thread_id", "=", threadId),
  );
  private readonly selectValues = new PreparedStatement((db, threadId: string) =>
    db.selectFrom("threads").select("values").where("thread_id", "=", threadId),
  );

  /** `POST /threads` is the cheapest hot request: building this insert per call was ~4 % of it. */
  private readonly insertThread = new PreparedStatement((db, ...row: Array<string | null>) =>
    db
      .insertInto("threads")
      .values(
        Object.fromEntries(THREAD_COLUMNS.map((column, i) => [column, row[i]])) as unknown as ThreadsTable,
      )
      .onConflict((oc) => oc.column("thread_id").doNothing()),
  );

  constructor(
    private readonly db: Kysely<AgentServerDb>,
    private readonly dialect: SqlDialect,
  ) {}

  async create(thread: Thread, ifExists: "raise" | "do_nothing"): Promise<Thread> {
    // One statement, so two processes creating one id at once cannot both succeed.
    const row = threadToRow(thread);
    const inserted = await this.insertThread.changes(this.db, ...THREAD_COLUMNS.map((column) => row[column]));
    if (inserted > 0) return thread;
    const existing = await this.get(thread.thread_id);
    if (ifExists === "do_nothing" && existing) return existing;
    throw new ConflictError(`Thread with ID ${thread.thread_id} already exists`);
  }

  async delete(threadId: string): Promise<boolean> {
    const result = await this.db.deleteFrom("threads").where("thread_id", "=", threadId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async search(
    filter: ThreadFilter & { limit: number; offset: number; sortBy: string; sortOrder: "asc" | "desc" },
  ): Promise<Thread[]> {
    const sortBy = filter.sortBy as keyof ThreadsTable;
    const rows = await this.filtered(filter).orderBy(sortBy, filter.sortOrder).orderBy("thread_id").execute();
    // Metadata and values filters are JSON containment, checked here (see docs/decisions.md).
    return rows
      .map(threadFromRow)
      .filter((t) => matches(t, filter))
      .slice(filter.offset, filter.offset + filter.limit);
  }

  async count(filter: ThreadFilter): Promise<number> {
    if (!filter.metadata && !filter.values) {
      const row = await this.filtered(filter)
        .clearSelect()
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    }
    return (await this.filtered(filter).execute()).map(threadFromRow).filter((t) => matches(t, filter))
      .length;
  }

  private filtered(filter: ThreadFilter) {
    let query = this.db.selectFrom("threads").selectAll();
    if (filter.ids) query = query.where("thread_id", "in", filter.ids.length ? filter.ids : [""]);
    if (filter.status) query = query.where("status", "=", filter.status);
    return query;
  }

  async patch(threadId: string, metadata: JsonObject): Promise<Thread | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await forUpdate(
        trx.selectFrom("threads").selectAll().where("thread_id", "=", threadId),
        this.dialect,
      ).executeTakeFirst();
      if (!row) return undefined;
      const thread = threadFromRow(row);
      const updated = {
        ...thread,
        metadata: { ...thread.metadata, ...metadata },
        updated_at: new Date().toISOString(),
      };
      await trx
        .updateTable("threads")
        .set({ metadata: JSON.stringify(updated.metadata), updated_at: updated.updated_at })
        .where("thread_id", "=", threadId)
        .execute();
      return updated;
    });
  }

  async setState(
    threadId: string,
    state: { values: unknown; interrupts: JsonObject; hasNext: boolean },
  ): Promise<void> {
    const now = new Date().toISOString();
    await this.db
      .updateTable("threads")
      .set({
        values: JSON.stringify(state.values ?? null),
        interrupts: JSON.stringify(state.interrupts),
        status: state.hasNext ? "interrupted" : "idle",
        state_updated_at: now,
        updated_at: now,
      })
      .where("thread_id", "=", threadId)
      .execute();
  }

  async activeRunIds(threadId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom("runs")
      .select("run_id")
      .where("thread_id", "=", threadId)
      .where("status", "in", ["pending", "running"])
      .execute();
    return rows.map((r) => r.run_id);
  }

  async get(threadId: string): Promise<Thread | undefined> {
    const row = await this.selectThread.first(this.db, threadId);
    return row ? threadFromRow(row) : undefined;
  }

  async valuesJson(threadId: string): Promise<string> {
    // Stored as JSON text on both dialects, written by JSON.stringify: parsing it to serialise it
    // again for the answer gives the same text (tens of µs per run for an agent's message history).
    return (await this.selectValues.first(this.db, threadId))?.values ?? "null";
  }

  async configJson(threadId: string): Promise<string | undefined> {
    return (await this.selectConfig.first(this.db, threadId))?.config;
  }
}

function matches(thread: Thread, filter: ThreadFilter): boolean {
  if (filter.metadata && !containsJson(thread.metadata, filter.metadata)) return false;
  if (filter.values && !containsJson(thread.values, filter.values)) return false;
  return true;
}
