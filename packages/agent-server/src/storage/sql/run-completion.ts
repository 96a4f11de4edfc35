import { randomUUID } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import type { ClaimedRun, ClaimFor, RunCompletion } from "../types.js";
import type { SqlDialect } from "./dialect.js";
import { cancelOf, fromRow, refreshThread, threadValuesText } from "./run-rows.js";
import { holdsNul, type RunShortcuts, type ShortcutFinish } from "./run-shortcuts.js";
import type { RunStatements } from "./run-statements.js";
import type { AgentServerDb } from "./schema.js";

/** What a run's completion needs from its store. */
export interface CompletionContext {
  db: Kysely<AgentServerDb>;
  dialect: SqlDialect;
  q: RunStatements;
  /** Claims the oldest runnable run inside the completion's transaction (the refilled slot). */
  claimIn: (trx: Transaction<AgentServerDb>, claimFor: ClaimFor) => Promise<ClaimedRun | undefined>;
  /** The common completion in one statement, where the database offers it. */
  shortcuts?: RunShortcuts | undefined;
}

type Finished = { applied: boolean; next: ClaimedRun | undefined };

/**
 * Ends a run, fenced by its claim's token, and updates its thread; with `claimFor`, also claims the
 * next waiting run in the same transaction where that cannot undo the end (below). `applied` is
 * false when this attempt no longer owns the run (or the run or its thread is gone).
 */
export async function finishRun(
  ctx: CompletionContext,
  completion: RunCompletion,
  claimFor: ClaimFor | undefined,
): Promise<Finished> {
  if (!ctx.dialect.rowLocks && !completion.deleteRun) return finishRunUnlocked(ctx, completion, claimFor);
  const shortcut = commonFinish(completion);
  if (ctx.shortcuts && shortcut && !holdsNul(Object.values(shortcut))) {
    if (claimFor && !holdsNul([claimFor.owner]))
      return finishAndClaim(ctx.shortcuts, ctx.db, shortcut, claimFor);
    return { applied: await ctx.shortcuts.finish(ctx.db, shortcut), next: undefined };
  }
  // With row locks (PostgreSQL) another process may claim on the same thread meanwhile; a unique
  // violation here would abort the completion with it, so the queue claims on its own (the
  // shortcut above catches it inside the database instead).
  const claimNext = ctx.dialect.rowLocks ? undefined : claimFor;
  const notApplied = { applied: false, next: undefined };
  const owned = await ctx.q.owned.first(ctx.db, completion.runId, completion.token);
  if (!owned) return notApplied;
  return ctx.db.transaction().execute(async (trx) => {
    if (!(await ctx.q.threadExists.first(trx, owned.thread_id))) return notApplied;
    const now = new Date().toISOString();
    // Fenced: only the attempt holding the token may end the run.
    const fence = { runId: completion.runId, token: completion.token };
    let changed: bigint | number;
    if (completion.deleteRun) {
      const result = await trx
        .deleteFrom("runs")
        .where("run_id", "=", fence.runId)
        .where("lease_token", "=", fence.token)
        .where("status", "=", "running")
        .executeTakeFirst();
      changed = result.numDeletedRows;
    } else {
      changed = await ctx.q.finish.changes(
        trx,
        fence.runId,
        fence.token,
        completion.status,
        completion.error ? JSON.stringify(completion.error) : null,
        now,
      );
    }
    if (Number(changed) !== 1) return notApplied;
    await threadAfterRun(ctx, trx, owned.thread_id, now, completion);
    return { applied: true, next: claimNext ? await ctx.claimIn(trx, claimNext) : undefined };
  });
}

/**
 * The completion RunShortcuts.finish does: a run that ended well (or was interrupted) with its
 * thread's values and nothing left to do, its record kept. Undefined for every other case.
 */
function commonFinish(completion: RunCompletion) {
  const { thread } = completion;
  const runErrored = completion.status === "error" || completion.status === "timeout";
  if (runErrored || completion.deleteRun || !thread || thread.hasNext) return undefined;
  return {
    runId: completion.runId,
    token: completion.token,
    status: completion.status,
    error: completion.error ? JSON.stringify(completion.error) : null,
    values: threadValuesText(thread),
    interrupts: JSON.stringify(thread.interrupts),
    now: new Date().toISOString(),
  };
}

/** The common end and the next claim in one statement (RunShortcuts.finishAndClaim). */
async function finishAndClaim(
  shortcuts: RunShortcuts,
  db: Kysely<AgentServerDb>,
  shortcut: ShortcutFinish,
  claimFor: ClaimFor,
): Promise<Finished> {
  const { owner, leaseMs, nowMs } = claimFor;
  const token = randomUUID();
  const { applied, claimed } = await shortcuts.finishAndClaim(db, shortcut, {
    owner,
    token,
    expiresAt: nowMs + leaseMs,
    nowMs,
    now: new Date(nowMs).toISOString(),
  });
  if (!claimed) return { applied, next: undefined };
  // As the queue's own claim answers it: a queued run may have run before (not `fresh`).
  const { row, latestCheckpointRunId, latestCheckpoint } = claimed;
  return {
    applied,
    next: { run: fromRow(row), token, latestCheckpointRunId, latestCheckpoint, ...cancelOf(row) },
  };
}

/**
 * finishRun where the write lock is the whole database's (SQLite): the fenced update alone says
 * whether this attempt still owns the run and names its thread. No thread lock is needed to order
 * row locks, and a deleted thread took its runs with it (foreign keys, ON DELETE CASCADE), so the
 * update finds nothing. Two statements fewer per run than the locking path.
 */
async function finishRunUnlocked(
  ctx: CompletionContext,
  completion: RunCompletion,
  claimFor: ClaimFor | undefined,
): Promise<Finished> {
  return ctx.db.transaction().execute(async (trx) => {
    const now = new Date().toISOString();
    const finished = await ctx.q.finishReturningThread.first(
      trx,
      completion.runId,
      completion.token,
      completion.status,
      completion.error ? JSON.stringify(completion.error) : null,
      now,
    );
    if (!finished) return { applied: false, next: undefined };
    await threadAfterRun(ctx, trx, finished.thread_id, now, completion);
    return { applied: true, next: claimFor ? await ctx.claimIn(trx, claimFor) : undefined };
  });
}

/** The thread's status and values once one of its runs ended (the common case in one statement). */
async function threadAfterRun(
  ctx: CompletionContext,
  trx: Transaction<AgentServerDb>,
  threadId: string,
  now: string,
  completion: RunCompletion,
): Promise<void> {
  const runErrored = completion.status === "error" || completion.status === "timeout";
  const { thread } = completion;
  if (runErrored || !thread || thread.hasNext) {
    await refreshThread(trx, threadId, now, { runErrored, thread });
    return;
  }
  await ctx.q.threadAfterFinishedRun.execute(
    trx,
    threadValuesText(thread),
    JSON.stringify(thread.interrupts),
    now,
    threadId,
    threadId,
  );
}
