import type { Kysely } from "kysely";
import type { RecoveryReport, RunStore } from "../types.js";
import type { SqlDialect } from "./dialect.js";
import { lockThread, refreshThread } from "./run-rows.js";
import type { AgentServerDb } from "./schema.js";

/** What RunStore.recover takes. */
export type RecoverOptions = Parameters<RunStore["recover"]>[0];

/** Hands a stopping owner's runs back to the queue; the attempt it spent is given back. */
export async function releaseRuns(db: Kysely<AgentServerDb>, owner: string): Promise<string[]> {
  const rows = await db
    .updateTable("runs")
    .set((eb) => ({
      status: "pending",
      attempt: eb("attempt", "-", 1),
      lease_owner: null,
      lease_token: null,
      lease_expires_at: null,
      updated_at: new Date().toISOString(),
    }))
    .where("lease_owner", "=", owner)
    .where("status", "=", "running")
    .returning("run_id")
    .execute();
  return rows.map((r) => r.run_id);
}

/**
 * Runs left `running` by owners that are gone (RunStore.recover): back to `pending`, or `error`
 * once their attempts are spent.
 */
export async function recoverRuns(
  db: Kysely<AgentServerDb>,
  dialect: SqlDialect,
  options: RecoverOptions,
): Promise<RecoveryReport> {
  const { executing, liveOwner } = options;
  let query = db
    .selectFrom("runs")
    .select(["run_id", "thread_id", "attempt", "lease_token", "lease_owner"])
    .where("status", "=", "running");
  // The live owner's own expired runs are looked at only when it says which it is executing.
  if (!executing || options.allForeign)
    query = query.where((eb) => eb.or([eb("lease_owner", "is", null), eb("lease_owner", "!=", liveOwner)]));
  if (options.deadOwner !== undefined) query = query.where("lease_owner", "=", options.deadOwner);
  if (!options.allForeign) query = query.where("lease_expires_at", "<", options.nowMs);
  const stale = (await query.execute()).filter(
    (run) => run.lease_owner !== liveOwner || !executing?.has(run.run_id),
  );
  const report: RecoveryReport = { requeued: [], failed: [] };
  const now = new Date(options.nowMs).toISOString();
  for (const run of stale) {
    // One transaction per run, fenced on the lease seen above: of two reapers (or a reaper and
    // a late heartbeat) only one acts, and a renewed lease is left alone.
    const outcome = await db.transaction().execute(async (trx) => {
      await lockThread(trx, run.thread_id, dialect);
      const exhausted = run.attempt >= options.maxAttempts;
      const error = {
        error: "RunAttemptsExhausted",
        message: `Run failed after ${run.attempt} attempts: the server running it stopped before it finished.`,
      };
      let update = trx
        .updateTable("runs")
        .set(
          exhausted
            ? {
                status: "error",
                error: JSON.stringify(error),
                lease_owner: null,
                lease_token: null,
                lease_expires_at: null,
                updated_at: now,
              }
            : {
                status: "pending",
                lease_owner: null,
                lease_token: null,
                lease_expires_at: null,
                updated_at: now,
              },
        )
        .where("run_id", "=", run.run_id)
        .where("status", "=", "running");
      update =
        run.lease_token === null
          ? update.where("lease_token", "is", null)
          : update.where("lease_token", "=", run.lease_token);
      if (!options.allForeign) update = update.where("lease_expires_at", "<", options.nowMs);
      const result = await update.executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return "skipped" as const;
      if (exhausted) await refreshThread(trx, run.thread_id, now, { runErrored: true, thread: null });
      return exhausted ? ("failed" as const) : ("requeued" as const);
    });
    if (outcome !== "skipped") report[outcome].push(run.run_id);
  }
  return report;
}
