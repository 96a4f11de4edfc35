import { randomUUID } from "node:crypto";
import type { RunStatus } from "@berth-platform/schemas";
import type { Kysely, Transaction } from "kysely";
import { resultFromRows } from "../../domain/run-result.js";
import { newThread } from "../../domain/thread-record.js";
import { ConflictError, NotFoundError } from "../../errors.js";
import { BUSY_THREAD_MESSAGE } from "../../queue/multitask.js";
import { StaleReadsError } from "../stale-reads.js";
import type {
  CancelResult,
  ClaimedRun,
  ClaimFor,
  CreateRunRequest,
  CreateRunResult,
  RecoveryReport,
  RunCompletion,
  RunRecord,
  RunStore,
} from "../types.js";
import { forUpdate, type SqlDialect } from "./dialect.js";
import { parseJson } from "./json-match.js";
import { finishRun } from "./run-completion.js";
import { type RecoverOptions, recoverRuns, releaseRuns } from "./run-recovery.js";
import { ACTIVE, cancelOf, fromRow, lockThread, refreshThread } from "./run-rows.js";
import { createOnIdleThread, holdsNul, type RunShortcuts } from "./run-shortcuts.js";
import { runStatements } from "./run-statements.js";
import type { AgentServerDb } from "./schema.js";
import { threadToRow } from "./threads.js";

export interface SqlRunStoreOptions {
  /**
   * Look for a claimable run outside a transaction before claiming one: for SQLite files shared by
   * processes, whose transactions take the write lock at BEGIN (an empty claim would queue behind
   * every writer of the other processes).
   */
  probeBeforeClaim?: boolean;
  /** One-statement forms of the common cases (PostgreSQL's functions), tried before the general path. */
  shortcuts?: RunShortcuts | undefined;
}

/** How many times a claim is retried when another process won the same thread meanwhile. */
const CLAIM_ATTEMPTS = 3;

/**
 * The run store on either dialect; the run row is the queue item. On PostgreSQL many processes
 * share it: claims lock rows with `FOR UPDATE SKIP LOCKED`, and every transaction that changes a
 * thread's runs locks the thread row first (lockThread).
 */
export class SqlRunStore implements RunStore {
  private readonly q: ReturnType<typeof runStatements>;

  constructor(
    private readonly db: Kysely<AgentServerDb>,
    private readonly dialect: SqlDialect,
    private readonly options: SqlRunStoreOptions = {},
  ) {
    this.q = runStatements(dialect);
  }

  /** The shortcuts' create checks what the run was built from (`CreateRunRequest.expected`). */
  get checksCreateReads(): boolean {
    return this.options.shortcuts !== undefined;
  }

  async create(request: CreateRunRequest): Promise<CreateRunResult> {
    try {
      return await this.insertRun(request);
    } catch (error) {
      // A claim at creation lost a race with another process's claim on the thread (the
      // one-running-run-per-thread index): the run goes to the queue like any other.
      if (!request.claimFor || !this.dialect.isUniqueViolation(error)) throw error;
      const { claimFor: _, ...unclaimed } = request;
      return this.insertRun(unclaimed);
    }
  }

  private async insertRun(request: CreateRunRequest): Promise<CreateRunResult> {
    const { shortcuts } = this.options;
    if (!shortcuts && request.expected) throw new StaleReadsError();
    return (
      (shortcuts && (await createOnIdleThread(shortcuts, this.db, request))) ?? this.insertRunLocked(request)
    );
  }

  private async insertRunLocked(request: CreateRunRequest): Promise<CreateRunResult> {
    const { run } = request;
    return this.db.transaction().execute(async (trx) => {
      const now = new Date().toISOString();
      const selectThread = () => this.q.threadMetadata.first(trx, run.thread_id);
      let threadRow = await selectThread();
      if (!threadRow) {
        if (!request.createThreadIfMissing)
          throw new NotFoundError(`Thread with ID ${run.thread_id} not found`);
        // Another process may create it at the same moment: whichever insert wins, both then lock it.
        await trx
          .insertInto("threads")
          .values(threadToRow(newThread(run.thread_id, now)))
          .onConflict((oc) => oc.column("thread_id").doNothing())
          .execute();
        threadRow = await selectThread();
        if (!threadRow) throw new NotFoundError(`Thread with ID ${run.thread_id} not found`);
      }
      const threadMetadata = parseJson(threadRow.metadata) as Record<string, unknown>;

      // Locked too: a worker claiming one of them meanwhile is waited for, and its status seen.
      const active = (await this.q.activeOfThread.execute(trx, run.thread_id)).rows;
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
      const { claimFor } = request;
      const claim =
        claimFor && active.length === 0 && run.available_at <= claimFor.nowMs
          ? { ...claimFor, token: randomUUID() }
          : undefined;
      await this.q.insertRun.execute(
        trx,
        record.run_id,
        record.thread_id,
        record.assistant_id,
        record.created_at,
        claim ? "running" : record.status,
        JSON.stringify(record.metadata),
        JSON.stringify(record.kwargs),
        record.multitask_strategy,
        claim ? 1 : 0,
        record.available_at,
        claim?.owner ?? null,
        claim?.token ?? null,
        claim ? claim.nowMs + claim.leaseMs : null,
      );
      const metadata = JSON.stringify({ ...threadMetadata, ...request.threadMetadata });
      if (request.threadConfig && active.length === 0)
        await this.q.threadBusyWithConfig.execute(
          trx,
          now,
          metadata,
          JSON.stringify(request.threadConfig),
          run.thread_id,
        );
      else await this.q.threadBusy.execute(trx, now, metadata, run.thread_id);
      return {
        run: record,
        displaced: decision.displace,
        ...(claim
          ? {
              claim: {
                run: { ...record, status: "running" as const, attempt: 1 },
                token: claim.token,
                fresh: true,
              },
            }
          : {}),
      };
    });
  }

  async get(threadId: string, runId: string): Promise<RunRecord | undefined> {
    const row = await this.q.run.first(this.db, runId, threadId);
    return row ? fromRow(row) : undefined;
  }

  async joinState(
    threadId: string,
    runId: string,
  ): Promise<{ status: RunStatus; resultJson?: string } | undefined> {
    const row = await this.q.joinState.first(this.db, runId, threadId);
    if (!row) return undefined;
    const { error, interrupts, values_json: valuesJson } = row;
    const status = row.status as RunStatus;
    return valuesJson === null
      ? { status }
      : { status, resultJson: resultFromRows({ status, error, interrupts, valuesJson }) };
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
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.tryClaim(owner, leaseMs, nowMs);
      } catch (error) {
        // The one-running-run-per-thread index refused a claim another process made first.
        if (!this.dialect.isUniqueViolation(error) || attempt >= CLAIM_ATTEMPTS) throw error;
      }
    }
  }

  private async tryClaim(owner: string, leaseMs: number, nowMs: number): Promise<ClaimedRun | undefined> {
    // Nothing to claim is the common answer once runs are claimed at creation; on a SQLite file
    // other processes write, finding that out inside BEGIN IMMEDIATE would take the write lock.
    if (this.options.probeBeforeClaim && !(await this.q.claimable.first(this.db, nowMs))) return undefined;
    const { shortcuts } = this.options;
    if (shortcuts && !holdsNul([owner])) {
      const token = randomUUID();
      const now = new Date(nowMs).toISOString();
      const claimed = await shortcuts.claim(this.db, {
        owner,
        token,
        expiresAt: nowMs + leaseMs,
        nowMs,
        now,
      });
      if (!claimed) return undefined;
      const { row, latestCheckpointRunId, latestCheckpoint } = claimed;
      return { run: fromRow(row), token, latestCheckpointRunId, latestCheckpoint, ...cancelOf(row) };
    }
    return this.db.transaction().execute((trx) => this.claimIn(trx, { owner, leaseMs, nowMs }));
  }

  /** Claims the oldest runnable run inside `trx`. */
  private async claimIn(
    trx: Transaction<AgentServerDb>,
    claimFor: ClaimFor,
  ): Promise<ClaimedRun | undefined> {
    const { owner, leaseMs, nowMs } = claimFor;
    const row = await this.q.claimable.first(trx, nowMs);
    if (!row) return undefined;
    const token = randomUUID();
    const now = new Date(nowMs).toISOString();
    const updated = await this.q.claim.changes(
      trx,
      row.run_id,
      row.attempt + 1,
      owner,
      token,
      nowMs + leaseMs,
      now,
    );
    if (updated !== 1) return undefined;
    return {
      run: { ...fromRow(row), status: "running", attempt: row.attempt + 1, updated_at: now },
      token,
      ...cancelOf(row),
    };
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
    const row = await this.q.nextAvailableAt.first(this.db);
    return row?.next ?? undefined;
  }

  async renewLease(runId: string, token: string, leaseMs: number, nowMs: number): Promise<boolean> {
    return (await this.q.renewLease.changes(this.db, runId, token, nowMs + leaseMs)) === 1;
  }

  async complete(completion: RunCompletion): Promise<boolean> {
    return (await this.finishRun(completion, undefined)).applied;
  }

  completeAndClaim(
    completion: RunCompletion,
    claimFor: ClaimFor,
  ): Promise<{ applied: boolean; next: ClaimedRun | undefined }> {
    return this.finishRun(completion, claimFor);
  }

  private finishRun(
    completion: RunCompletion,
    claimFor: ClaimFor | undefined,
  ): Promise<{ applied: boolean; next: ClaimedRun | undefined }> {
    return finishRun(
      {
        db: this.db,
        dialect: this.dialect,
        q: this.q,
        claimIn: (trx, next) => this.claimIn(trx, next),
        shortcuts: this.options.shortcuts,
      },
      completion,
      claimFor,
    );
  }

  async cancel(
    threadId: string,
    runIds: string[],
    action: "interrupt" | "rollback",
  ): Promise<CancelResult[]> {
    if (runIds.length === 0) return [];
    return this.db.transaction().execute(async (trx) => {
      if (!(await lockThread(trx, threadId, this.dialect))) return [];
      const active = await forUpdate(
        trx
          .selectFrom("runs")
          .select(["run_id", "status"])
          .where("thread_id", "=", threadId)
          .where("run_id", "in", runIds)
          .where("status", "in", ACTIVE),
        this.dialect,
      ).execute();
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
    // One conditional statement: a run that turned active meanwhile is not deleted.
    const result = await this.db
      .deleteFrom("runs")
      .where("run_id", "=", runId)
      .where("thread_id", "=", threadId)
      .where("status", "not in", ACTIVE)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) > 0) return "deleted";
    return (await this.get(threadId, runId)) ? "active" : "missing";
  }

  async cancelAction(runId: string): Promise<"interrupt" | "rollback" | undefined> {
    const action = (await this.q.cancelAction.first(this.db, runId))?.cancel_action;
    return action === "interrupt" || action === "rollback" ? action : undefined;
  }

  release(owner: string): Promise<string[]> {
    return releaseRuns(this.db, owner);
  }

  recover(options: RecoverOptions): Promise<RecoveryReport> {
    return recoverRuns(this.db, this.dialect, options);
  }
}
