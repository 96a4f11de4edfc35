import { sql } from "kysely";
import type { SqlDialect } from "./dialect.js";
import { type Db, PreparedStatement } from "./prepared.js";

/**
 * The run store's statements that every run executes (create, claim, complete, join), compiled
 * once per store. The rest of the store builds its queries per call.
 */
export function runStatements(dialect: SqlDialect) {
  return {
    // Metadata alone: parsing the whole row would parse the thread's values (its full message
    // history) on every run create, for nothing.
    threadMetadata: new PreparedStatement((db, threadId: string) => {
      const q = db.selectFrom("threads").select(["thread_id", "metadata"]).where("thread_id", "=", threadId);
      return dialect.rowLocks ? q.forUpdate() : q;
    }),
    threadExists: new PreparedStatement((db, threadId: string) => {
      const q = db.selectFrom("threads").select("thread_id").where("thread_id", "=", threadId);
      return dialect.rowLocks ? q.forUpdate() : q;
    }),
    activeOfThread: new PreparedStatement((db, threadId: string) => {
      const q = db
        .selectFrom("runs")
        .select(["run_id", "status"])
        .where("thread_id", "=", threadId)
        .where("status", "in", ["pending", "running"]);
      // SQLite would walk runs_thread_seq (every run the thread ever had) to spare itself sorting
      // the few active ones; `+seq` orders them without that index, so runs_thread_status is used.
      return dialect.rowLocks ? q.orderBy("seq").forUpdate() : q.orderBy(sql`+seq`);
    }),
    run: new PreparedStatement((db, runId: string, threadId: string) =>
      db.selectFrom("runs").selectAll().where("run_id", "=", runId).where("thread_id", "=", threadId),
    ),
    // The oldest available pending run whose thread has nothing running and no older available
    // pending run: per-thread FIFO even while another process holds that older run's row lock
    // (SKIP LOCKED passes over it, and this condition keeps the younger one waiting).
    // The statuses and the limit are literals, not parameters: only then may the planner use the
    // partial index `runs_one_running_per_thread` (WHERE status = 'running') for the first
    // condition, and stop at the first row of the ordered index scan. With parameters the claim
    // cost SQLite 93 µs on a server's file with 45 pending runs, with literals 17 µs
    // (docs/decisions.md, issue 12 fourth pass).
    claimable: new PreparedStatement((db, nowMs: number) => {
      const q = db
        .selectFrom("runs as r")
        .selectAll()
        .where("r.status", "=", sql.lit("pending"))
        .where("r.available_at", "<=", nowMs)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("runs as a")
                .select("a.seq")
                .whereRef("a.thread_id", "=", "r.thread_id")
                .where("a.status", "=", sql.lit("running")),
            ),
          ),
        )
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("runs as b")
                .select("b.seq")
                .whereRef("b.thread_id", "=", "r.thread_id")
                .whereRef("b.seq", "<", "r.seq")
                .where("b.status", "=", sql.lit("pending"))
                .where("b.available_at", "<=", nowMs),
            ),
          ),
        )
        .orderBy("r.seq")
        .limit(sql.lit(1));
      return dialect.rowLocks ? q.forUpdate().skipLocked() : q;
    }),
    claim: new PreparedStatement(
      (db, runId: string, attempt: number, owner: string, token: string, expiresAt: number, now: string) =>
        db
          .updateTable("runs")
          .set({
            status: "running",
            attempt,
            lease_owner: owner,
            lease_token: token,
            lease_expires_at: expiresAt,
            // cancel_action stays: a pending run has one only when a cancel reached an earlier
            // attempt that then died, and the worker honours it (ClaimedRun.cancelAction).
            updated_at: now,
          })
          .where("run_id", "=", runId)
          .where("status", "=", "pending"),
    ),
    nextAvailableAt: new PreparedStatement((db) =>
      db
        .selectFrom("runs")
        .select((eb) => eb.fn.min("available_at").as("next"))
        .where("status", "=", "pending"),
    ),
    renewLease: new PreparedStatement((db, runId: string, token: string, expiresAt: number) =>
      db
        .updateTable("runs")
        .set({ lease_expires_at: expiresAt })
        .where("run_id", "=", runId)
        .where("lease_token", "=", token)
        .where("status", "=", "running"),
    ),
    owned: new PreparedStatement((db, runId: string, token: string) =>
      db
        .selectFrom("runs")
        .select(["thread_id"])
        .where("run_id", "=", runId)
        .where("lease_token", "=", token)
        .where("status", "=", "running"),
    ),
    finish: new PreparedStatement(finishRunQuery),
    /** `finish` that names the run's thread (SQLite: the completion's only read, see finishRun). */
    finishReturningThread: new PreparedStatement(
      (db, runId: string, token: string, status: string, error: string | null, now: string) =>
        finishRunQuery(db, runId, token, status, error, now).returning("thread_id"),
    ),
    /** A new run row (its claim columns null unless it is claimed at creation). */
    insertRun: new PreparedStatement(
      (
        db,
        runId: string,
        threadId: string,
        assistantId: string,
        createdAt: string,
        status: string,
        metadata: string,
        kwargs: string,
        strategy: string,
        attempt: number,
        availableAt: number,
        leaseOwner: string | null,
        leaseToken: string | null,
        leaseExpiresAt: number | null,
      ) =>
        db.insertInto("runs").values({
          run_id: runId,
          thread_id: threadId,
          assistant_id: assistantId,
          created_at: createdAt,
          updated_at: createdAt,
          status,
          metadata,
          kwargs,
          multitask_strategy: strategy,
          attempt,
          available_at: availableAt,
          lease_owner: leaseOwner,
          lease_token: leaseToken,
          lease_expires_at: leaseExpiresAt,
          cancel_action: null,
          error: null,
        }),
    ),
    /** The thread a new run makes busy; `withConfig`: the run's config becomes the thread's. */
    threadBusy: new PreparedStatement((db, now: string, metadata: string, threadId: string) =>
      db
        .updateTable("threads")
        .set({ status: "busy", updated_at: now, metadata })
        .where("thread_id", "=", threadId),
    ),
    threadBusyWithConfig: new PreparedStatement(
      (db, now: string, metadata: string, config: string, threadId: string) =>
        db
          .updateTable("threads")
          .set({ status: "busy", updated_at: now, metadata, config })
          .where("thread_id", "=", threadId),
    ),
    /**
     * The thread after a run that finished with nothing next: its values, and `busy` while other
     * runs of it are pending or running, else `idle`, in one statement (refreshThread counts first).
     */
    threadAfterFinishedRun: new PreparedStatement(
      (db, values: string | null, interrupts: string, now: string, threadId: string, sameThreadId: string) =>
        db
          .updateTable("threads")
          .set((eb) => ({
            status: eb
              .case()
              .when(
                eb.exists(
                  eb
                    .selectFrom("runs")
                    .select("runs.seq")
                    .where("runs.thread_id", "=", sameThreadId)
                    .where("runs.status", "in", ["pending", "running"]),
                ),
              )
              .then("busy")
              .else("idle")
              .end(),
            updated_at: now,
            values,
            interrupts,
            state_updated_at: now,
          }))
          .where("thread_id", "=", threadId),
    ),
    // What a join answers, only for an ended run: read now instead of after the end. The thread's
    // interrupts only while it is interrupted (resultFromRows).
    joinState: new PreparedStatement((db, runId: string, threadId: string) =>
      db
        .selectFrom("runs")
        .innerJoin("threads", "threads.thread_id", "runs.thread_id")
        .select((eb) => {
          const ended = eb("runs.status", "in", [
            sql.lit("success"),
            sql.lit("error"),
            sql.lit("timeout"),
            sql.lit("interrupted"),
          ]);
          return [
            "runs.status",
            "runs.error",
            eb
              .case()
              .when(ended)
              .then(eb.fn.coalesce("threads.values", sql.lit("null")))
              .end()
              .as("values_json"),
            eb
              .case()
              .when(eb.and([ended, eb("threads.status", "=", sql.lit("interrupted"))]))
              .then(eb.ref("threads.interrupts"))
              .end()
              .as("interrupts"),
          ];
        })
        .where("runs.run_id", "=", runId)
        .where("runs.thread_id", "=", threadId),
    ),
    cancelAction: new PreparedStatement((db, runId: string) =>
      db.selectFrom("runs").select("cancel_action").where("run_id", "=", runId),
    ),
  };
}

/** A run's end, fenced: only the attempt holding `token` while the run is running changes it. */
function finishRunQuery(
  db: Db,
  runId: string,
  token: string,
  status: string,
  error: string | null,
  now: string,
) {
  return db
    .updateTable("runs")
    .set({
      status,
      error,
      lease_owner: null,
      lease_token: null,
      lease_expires_at: null,
      updated_at: now,
    })
    .where("run_id", "=", runId)
    .where("lease_token", "=", token)
    .where("status", "=", "running");
}

/** The compiled statements of one run store. */
export type RunStatements = ReturnType<typeof runStatements>;
