import type { Thread } from "@berth/schemas";
import type { Kysely, Selectable } from "kysely";
import { ConflictError } from "../../errors.js";
import type { ThreadStore } from "../types.js";
import { parseJson } from "./database.js";
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

/** SQLite implementation of the thread store. */
export class SqliteThreadStore implements ThreadStore {
  constructor(private readonly db: Kysely<AgentServerDb>) {}

  async create(thread: Thread, ifExists: "raise" | "do_nothing"): Promise<Thread> {
    return this.db.transaction().execute(async (trx) => {
      const existing = await trx
        .selectFrom("threads")
        .selectAll()
        .where("thread_id", "=", thread.thread_id)
        .executeTakeFirst();
      if (existing) {
        if (ifExists === "do_nothing") return threadFromRow(existing);
        throw new ConflictError(`Thread with ID ${thread.thread_id} already exists`);
      }
      await trx.insertInto("threads").values(threadToRow(thread)).execute();
      return thread;
    });
  }

  async delete(threadId: string): Promise<boolean> {
    const result = await this.db.deleteFrom("threads").where("thread_id", "=", threadId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async get(threadId: string): Promise<Thread | undefined> {
    const row = await this.db
      .selectFrom("threads")
      .selectAll()
      .where("thread_id", "=", threadId)
      .executeTakeFirst();
    return row ? threadFromRow(row) : undefined;
  }
}
