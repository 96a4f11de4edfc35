import type { RunStatus } from "@berth-platform/schemas";
import type { Kysely, Selectable, Transaction } from "kysely";
import { computeThreadStatus } from "../../domain/thread-status.js";
import type { ClaimedRun, RunCompletion, RunRecord, ThreadAfterRunRecord } from "../types.js";
import { forUpdate, type SqlDialect } from "./dialect.js";
import { parseJson } from "./json-match.js";
import type { AgentServerDb, RunsTable } from "./schema.js";

type Db = Kysely<AgentServerDb> | Transaction<AgentServerDb>;

/** Statuses of a run that still holds its thread. */
export const ACTIVE = ["pending", "running"] as const;

/** A runs row as a RunRecord. */
export function fromRow(row: Selectable<RunsTable>): RunRecord {
  return {
    run_id: row.run_id,
    thread_id: row.thread_id,
    assistant_id: row.assistant_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    status: row.status as RunStatus,
    metadata: parseJson(row.metadata),
    kwargs: parseJson(row.kwargs),
    multitask_strategy: row.multitask_strategy as RunRecord["multitask_strategy"],
    attempt: row.attempt,
    available_at: row.available_at,
    error: parseJson(row.error),
  };
}

/** The cancel an earlier attempt of a claimed run did not live to honour (ClaimedRun.cancelAction). */
export function cancelOf(row: { cancel_action: string | null }): Pick<ClaimedRun, "cancelAction"> {
  const action = row.cancel_action;
  return action === "interrupt" || action === "rollback" ? { cancelAction: action } : {};
}

/**
 * Locks a thread's row for the rest of the transaction (PostgreSQL) and says whether it exists.
 * Every transaction that changes a thread's runs takes this lock first, then run rows: one order,
 * so two processes never deadlock, and a thread's status is recomputed from committed runs.
 */
export async function lockThread(trx: Db, threadId: string, dialect: SqlDialect): Promise<boolean> {
  const row = await forUpdate(
    trx.selectFrom("threads").select("thread_id").where("thread_id", "=", threadId),
    dialect,
  ).executeTakeFirst();
  return row !== undefined;
}

/** The JSON stored for a thread's values after a run (SQL NULL for undefined values). */
export function threadValuesText(thread: ThreadAfterRunRecord): string | null {
  if ("valuesJson" in thread) return thread.valuesJson;
  return thread.values === undefined ? null : JSON.stringify(thread.values);
}

/** Recomputes a thread's status (and values) after one of its runs ended. */
export async function refreshThread(
  trx: Db,
  threadId: string,
  now: string,
  change: { runErrored: boolean; thread: RunCompletion["thread"]; keepStatusIfIdle?: boolean },
): Promise<void> {
  const others = await trx
    .selectFrom("runs")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("thread_id", "=", threadId)
    .where("status", "in", ACTIVE)
    .executeTakeFirstOrThrow();
  let status = computeThreadStatus({
    runErrored: change.runErrored,
    hasNext: change.thread?.hasNext ?? false,
    otherActiveRuns: Number(others.n),
  });
  if (change.keepStatusIfIdle && status === "idle") {
    // No run ended with a result: an interrupted or errored thread stays so; only `busy` clears.
    const current = await trx
      .selectFrom("threads")
      .select("status")
      .where("thread_id", "=", threadId)
      .executeTakeFirst();
    if (current && current.status !== "busy") status = current.status as typeof status;
  }
  await trx
    .updateTable("threads")
    .set({
      status,
      updated_at: now,
      ...(change.thread
        ? {
            values: threadValuesText(change.thread),
            interrupts: JSON.stringify(change.thread.interrupts),
            state_updated_at: now,
          }
        : {}),
    })
    .where("thread_id", "=", threadId)
    .execute();
}
