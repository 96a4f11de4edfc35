import { randomUUID } from "node:crypto";
import type { RunStatus } from "@berth-platform/schemas";
import type { Kysely } from "kysely";
import { newThread } from "../../domain/thread-record.js";
import { ConflictError, NotFoundError } from "../../errors.js";
import { BUSY_THREAD_MESSAGE } from "../../queue/multitask.js";
import type {
  CancelResult,
  ClaimedRun,
  CreateRunRequest,
  CreateRunResult,
  RecoveryReport,
  RunCompletion,
  RunRecord,
  RunStore,
} from "../types.js";
import { ACTIVE, fromRow, refreshThread } from "./run-rows.js";
import type { AgentServerDb } from "./schema.js";
import { threadFromRow, threadToRow } from "./threads.js";

/** SQLite implementation of the run store; the run row is the queue item. */
export class SqliteRunStore implements RunStore {
  constructor(private readonly db: Kysely<AgentServerDb>) {}

  async create(request: CreateRunRequest): Promise<CreateRunResult> {
    const { run } = request;
    return this.db.transaction().execute(async (trx) => {
      const now = new Date().toISOString();
      const threadRow = await trx
        .selectFrom("threads")
        .selectAll()
        .where("thread_id", "=", run.thread_id)
        .executeTakeFirst();
      let thread = threadRow ? threadFromRow(threadRow) : undefined;
      if (!thread) {
        if (!request.createThreadIfMissing)
          throw new NotFoundError(`Thread with ID ${run.thread_id} not found`);
        thread = newThread(run.thread_id, now);
        await trx.insertInto("threads").values(threadToRow(thread)).execute();
      }

      const active = await trx
        .selectFrom("runs")
        .select(["run_id", "status"])
        .where("thread_id", "=", run.thread_id)
        .where("status", "in", ACTIVE)
        .orderBy("seq")
        .execute();
      const decision = request.decide(
        active.map((a) => ({ run_id: a.run_id, status: a.status as "pending" | "running" })),
      );
      if (decision.kind === "reject") throw new ConflictError(BUSY_THREAD_MESSAGE);

      for (const d of decision.displace) {
        if (d.status === "pending" && d.action === "rollback") {
          await trx
            .deleteFrom("runs")
            .where("run_id", "=", d.run_id)
            .where("status", "=", "pending")
            .execute();
        } else if (d.status === "pending") {
          await trx
            .updateTable("runs")
            .set({ status: "interrupted", updated_at: now })
            .where("run_id", "=", d.run_id)
            .where("status", "=", "pending")
            .execute();
        } else {
          // A running run is stopped by its worker, which reads this when its abort signal fires.
          await trx
            .updateTable("runs")
            .set({ cancel_action: d.action, updated_at: now })
            .where("run_id", "=", d.run_id)
            .where("status", "=", "running")
            .execute();
        }
      }

      const record: RunRecord = {
        ...run,
        status: "pending",
        attempt: 0,
        error: null,
        updated_at: run.created_at,
      };
      await trx
        .insertInto("runs")
        .values({
          run_id: record.run_id,
          thread_id: record.thread_id,
          assistant_id: record.assistant_id,
          created_at: record.created_at,
          updated_at: record.updated_at,
          status: record.status,
          metadata: JSON.stringify(record.metadata),
          kwargs: JSON.stringify(record.kwargs),
          multitask_strategy: record.multitask_strategy,
          attempt: 0,
          available_at: record.available_at,
          lease_owner: null,
          lease_token: null,
          lease_expires_at: null,
          cancel_action: null,
          error: null,
        })
        .execute();
      await trx
        .updateTable("threads")
        .set({
          status: "busy",
          updated_at: now,
          metadata: JSON.stringify({ ...thread.metadata, ...request.threadMetadata }),
        })
        .where("thread_id", "=", run.thread_id)
        .execute();
      return { run: record, displaced: decision.displace };
    });
  }

  async get(threadId: string, runId: string): Promise<RunRecord | undefined> {
    const row = await this.db
      .selectFrom("runs")
      .selectAll()
      .where("run_id", "=", runId)
      .where("thread_id", "=", threadId)
      .executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  async list(
    threadId: string,
    options: { limit: number; offset: number; status?: RunStatus | undefined },
  ): Promise<RunRecord[]> {
    let query = this.db.selectFrom("runs").selectAll().where("thread_id", "=", threadId);
    if (options.status) query = query.where("status", "=", options.status);
    const rows = await query.orderBy("seq", "desc").limit(options.limit).offset(options.offset).execute();
    return rows.map(fromRow);
  }

  async claimNext(owner: string, leaseMs: number, nowMs: number): Promise<ClaimedRun | undefined> {
    return this.db.transaction().execute(async (trx) => {
      // Oldest available pending run whose thread has nothing running: global seq order gives
      // per-thread FIFO, since a thread's later runs are blocked while an earlier one runs.
      const row = await trx
        .selectFrom("runs as r")
        .selectAll()
        .where("r.status", "=", "pending")
        .where("r.available_at", "<=", nowMs)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("runs as a")
                .select("a.seq")
                .whereRef("a.thread_id", "=", "r.thread_id")
                .where("a.status", "=", "running"),
            ),
          ),
        )
        .orderBy("r.seq")
        .limit(1)
        .executeTakeFirst();
      if (!row) return undefined;
      const token = randomUUID();
      const now = new Date(nowMs).toISOString();
      const updated = await trx
        .updateTable("runs")
        .set({
          status: "running",
          attempt: row.attempt + 1,
          lease_owner: owner,
          lease_token: token,
          lease_expires_at: nowMs + leaseMs,
          cancel_action: null,
          updated_at: now,
        })
        .where("run_id", "=", row.run_id)
        .where("status", "=", "pending")
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return undefined;
      return {
        run: { ...fromRow(row), status: "running", attempt: row.attempt + 1, updated_at: now },
        token,
      };
    });
  }

  async countPending(): Promise<number> {
    const row = await this.db
      .selectFrom("runs")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("status", "=", "pending")
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async nextAvailableAt(): Promise<number | undefined> {
    const row = await this.db
      .selectFrom("runs")
      .select((eb) => eb.fn.min("available_at").as("next"))
      .where("status", "=", "pending")
      .executeTakeFirst();
    return row?.next ?? undefined;
  }

  async renewLease(runId: string, token: string, leaseMs: number, nowMs: number): Promise<boolean> {
    const result = await this.db
      .updateTable("runs")
      .set({ lease_expires_at: nowMs + leaseMs })
      .where("run_id", "=", runId)
      .where("lease_token", "=", token)
      .where("status", "=", "running")
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async complete(completion: RunCompletion): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom("runs")
        .select(["thread_id"])
        .where("run_id", "=", completion.runId)
        .where("lease_token", "=", completion.token)
        .where("status", "=", "running")
        .executeTakeFirst();
      if (!row) return false;
      const now = new Date().toISOString();
      if (completion.deleteRun) {
        await trx.deleteFrom("runs").where("run_id", "=", completion.runId).execute();
      } else {
        await trx
          .updateTable("runs")
          .set({
            status: completion.status,
            error: completion.error ? JSON.stringify(completion.error) : null,
            lease_owner: null,
            lease_token: null,
            lease_expires_at: null,
            updated_at: now,
          })
          .where("run_id", "=", completion.runId)
          .execute();
      }
      await refreshThread(trx, row.thread_id, now, {
        runErrored: completion.status === "error" || completion.status === "timeout",
        thread: completion.thread,
      });
      return true;
    });
  }

  async cancel(
    threadId: string,
    runIds: string[],
    action: "interrupt" | "rollback",
  ): Promise<CancelResult[]> {
    if (runIds.length === 0) return [];
    return this.db.transaction().execute(async (trx) => {
      const active = await trx
        .selectFrom("runs")
        .select(["run_id", "status"])
        .where("thread_id", "=", threadId)
        .where("run_id", "in", runIds)
        .where("status", "in", ACTIVE)
        .execute();
      const now = new Date().toISOString();
      const results: CancelResult[] = [];
      let endedAny = false;
      for (const run of active) {
        if (run.status === "pending") {
          if (action === "rollback") await trx.deleteFrom("runs").where("run_id", "=", run.run_id).execute();
          else {
            await trx
              .updateTable("runs")
              .set({ status: "interrupted", updated_at: now })
              .where("run_id", "=", run.run_id)
              .execute();
          }
          endedAny = true;
          results.push({ run_id: run.run_id, outcome: "ended", action });
        } else {
          await trx
            .updateTable("runs")
            .set({ cancel_action: action, updated_at: now })
            .where("run_id", "=", run.run_id)
            .execute();
          results.push({ run_id: run.run_id, outcome: "signalled", action });
        }
      }
      // Cancelling a pending run can leave the thread with nothing to do.
      if (endedAny)
        await refreshThread(trx, threadId, now, { runErrored: false, thread: null, keepStatusIfIdle: true });
      return results;
    });
  }

  async delete(threadId: string, runId: string): Promise<"deleted" | "active" | "missing"> {
    const run = await this.get(threadId, runId);
    if (!run) return "missing";
    if (run.status === "pending" || run.status === "running") return "active";
    await this.db.deleteFrom("runs").where("run_id", "=", runId).where("thread_id", "=", threadId).execute();
    return "deleted";
  }

  async cancelAction(runId: string): Promise<"interrupt" | "rollback" | undefined> {
    const row = await this.db
      .selectFrom("runs")
      .select("cancel_action")
      .where("run_id", "=", runId)
      .executeTakeFirst();
    const action = row?.cancel_action;
    return action === "interrupt" || action === "rollback" ? action : undefined;
  }

  async release(owner: string): Promise<string[]> {
    const rows = await this.db
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

  async recover(options: {
    liveOwner: string;
    nowMs: number;
    maxAttempts: number;
    allForeign: boolean;
  }): Promise<RecoveryReport> {
    return this.db.transaction().execute(async (trx) => {
      let query = trx
        .selectFrom("runs")
        .select(["run_id", "thread_id", "attempt"])
        .where("status", "=", "running")
        .where((eb) => eb.or([eb("lease_owner", "is", null), eb("lease_owner", "!=", options.liveOwner)]));
      if (!options.allForeign) query = query.where("lease_expires_at", "<", options.nowMs);
      const stale = await query.execute();
      const report: RecoveryReport = { requeued: [], failed: [] };
      const now = new Date(options.nowMs).toISOString();
      for (const run of stale) {
        if (run.attempt >= options.maxAttempts) {
          const error = {
            error: "RunAttemptsExhausted",
            message: `Run failed after ${run.attempt} attempts: the server running it stopped before it finished.`,
          };
          await trx
            .updateTable("runs")
            .set({
              status: "error",
              error: JSON.stringify(error),
              lease_owner: null,
              lease_token: null,
              updated_at: now,
            })
            .where("run_id", "=", run.run_id)
            .execute();
          await refreshThread(trx, run.thread_id, now, { runErrored: true, thread: null });
          report.failed.push(run.run_id);
        } else {
          await trx
            .updateTable("runs")
            .set({
              status: "pending",
              lease_owner: null,
              lease_token: null,
              lease_expires_at: null,
              updated_at: now,
            })
            .where("run_id", "=", run.run_id)
            .execute();
          report.requeued.push(run.run_id);
        }
      }
      return report;
    });
  }
}
