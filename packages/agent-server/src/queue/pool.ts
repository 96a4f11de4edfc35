import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { AgentServerConfig } from "../config.js";
import type { ClaimedRun, ClaimFor, RunStore } from "../storage/types.js";
import type { RunSignals } from "./types.js";

/** How often the queue looks for work even without a doorbell (lost signals only delay runs). */
const SAFETY_POLL_MS = 2_000;

/**
 * Claims runs from the store and executes up to `jobsPerWorker` at a time. Woken by the doorbell,
 * by a finished run, by a timer for delayed runs, and by a slow safety poll.
 */
export class RunQueue {
  /** The lease owner of this process's claims. */
  readonly owner: string;
  private readonly active = new Map<
    string,
    { controller: AbortController; done: Promise<void>; threadId: string }
  >();
  /** Slots held for runs being created here that may be claimed at creation (reserveSlot). */
  private reserved = 0;
  private started = false;
  private pumping = false;
  private pumpAgain = false;
  private stopping = false;
  private delayedTimer: NodeJS.Timeout | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly deps: {
      /** Given by a cluster primary, which recovers this owner's runs when the process dies. */
      owner?: string | undefined;
      runs: RunStore;
      signals: RunSignals;
      config: AgentServerConfig;
      logger: Logger;
      execute: (claim: ClaimedRun, controller: AbortController, next: NextRunHandoff) => Promise<void>;
      /** Runs recovery failed for good (attempts spent): their streams and waiters must hear it. */
      onRunsFailed?: (runIds: string[]) => void;
    },
  ) {
    this.owner = deps.owner ?? `worker-${randomUUID()}`;
  }

  /**
   * Recovers runs a dead process left `running`, then starts dispatching. `recoverAllForeign`: this
   * process owns the database alone (the SQLite lock), so every run left running is an orphan; on
   * a shared database only runs whose lease expired are.
   */
  async start(options: { recoverAllForeign: boolean } = { recoverAllForeign: true }): Promise<void> {
    const { runs, config, logger } = this.deps;
    const report = await runs.recover({
      liveOwner: this.owner,
      nowMs: Date.now(),
      maxAttempts: config.maxAttempts,
      allForeign: options.recoverAllForeign,
    });
    if (report.requeued.length || report.failed.length) {
      logger.warn(report, "recovered runs left running by a previous process");
    }
    if (report.failed.length) this.deps.onRunsFailed?.(report.failed);
    this.started = true;
    this.unsubscribe = this.deps.signals.onDoorbell(() => this.wake());
    this.timers.push(setInterval(() => this.wake(), SAFETY_POLL_MS));
    this.timers.push(setInterval(() => void this.reap(), config.reaperIntervalMs));
    this.wake();
  }

  /** Runs currently executing in this process. */
  /**
   * The thread of a run this process is executing, from its claim until after its end was
   * signalled (the worker signals before it returns); undefined otherwise.
   */
  threadOfRunning(runId: string): string | undefined {
    return this.active.get(runId)?.threadId;
  }

  get running(): number {
    return this.active.size;
  }

  /**
   * How a run's end hands its slot straight to the next run (RunStore.completeAndClaim): only while
   * every slot is busy, when runs are likely waiting; otherwise the wake-up after the run claims.
   */
  private readonly handoff: NextRunHandoff = {
    claimFor: () =>
      this.stopping || this.active.size + this.reserved < this.deps.config.jobsPerWorker
        ? undefined
        : { owner: this.owner, leaseMs: this.deps.config.leaseMs, nowMs: Date.now() },
    launch: (claim) => this.launch(claim),
  };

  /** Whether this process would take another run now (executing plus reserved below the limit). */
  hasCapacity(): boolean {
    return (
      this.started && !this.stopping && this.active.size + this.reserved < this.deps.config.jobsPerWorker
    );
  }

  /**
   * Holds a slot for a run about to be created in this process, so the create can insert it already
   * claimed (one transaction instead of create, doorbell, claim). Undefined when the queue is full,
   * not started (api role, hand-over) or stopping. The caller must `launch` or `cancel` it.
   */
  reserveSlot(): SlotReservation | undefined {
    if (!this.hasCapacity()) return undefined;
    this.reserved += 1;
    let open = true;
    const close = () => {
      if (!open) return false;
      open = false;
      this.reserved -= 1;
      return true;
    };
    return {
      owner: this.owner,
      leaseMs: this.deps.config.leaseMs,
      launch: (claim) => {
        if (close()) this.launch(claim);
      },
      // The run went to the queue instead, and its doorbell wakes this queue (or the create failed).
      cancel: () => void close(),
    };
  }

  /** Schedules a dispatch pass; concurrent calls coalesce. */
  wake(): void {
    if (this.stopping) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    void this.pump().finally(() => {
      this.pumping = false;
      if (this.pumpAgain) {
        this.pumpAgain = false;
        this.wake();
      }
    });
  }

  private async pump(): Promise<void> {
    const { runs, config, logger } = this.deps;
    try {
      let drained = false;
      while (!this.stopping && this.active.size + this.reserved < config.jobsPerWorker) {
        const claim = await runs.claimNext(this.owner, config.leaseMs, Date.now());
        if (!claim) {
          drained = true;
          break;
        }
        this.launch(claim);
      }
      // With every slot busy, the next finished run wakes the queue anyway: looking for the next
      // delayed run then (a query per pass, two per run under load) would only repeat this later.
      if (drained) await this.armDelayedTimer();
    } catch (error) {
      logger.error({ err: error }, "queue dispatch failed; retrying on the next wake-up");
    }
  }

  private launch(claim: ClaimedRun): void {
    const controller = new AbortController();
    // A claim that was in flight when the drain began: not executed, handed back with the rest.
    if (this.stopping) controller.abort("shutdown");
    const done = this.deps
      .execute(claim, controller, this.handoff)
      .catch((error: unknown) =>
        this.deps.logger.error({ err: error, run_id: claim.run.run_id }, "worker crashed"),
      )
      .finally(() => {
        this.active.delete(claim.run.run_id);
        this.wake();
      });
    this.active.set(claim.run.run_id, { controller, done, threadId: claim.run.thread_id });
  }

  private async armDelayedTimer(): Promise<void> {
    const next = await this.deps.runs.nextAvailableAt();
    clearTimeout(this.delayedTimer);
    if (next === undefined || this.stopping) return;
    const wait = next - Date.now();
    if (wait > 0) this.delayedTimer = setTimeout(() => this.wake(), Math.min(wait, 2 ** 31 - 1));
  }

  private async reap(): Promise<void> {
    try {
      const report = await this.deps.runs.recover({
        liveOwner: this.owner,
        nowMs: Date.now(),
        maxAttempts: this.deps.config.maxAttempts,
        allForeign: false,
        // A run this process claimed but never heard back about (the connection dropped after the
        // commit) is its own and would otherwise stay `running` for ever.
        executing: new Set(this.active.keys()),
      });
      if (report.requeued.length || report.failed.length) {
        this.deps.logger.warn(report, "recovered runs whose lease expired");
        if (report.failed.length) this.deps.onRunsFailed?.(report.failed);
        // Other processes' workers may be idle too.
        if (report.requeued.length) this.deps.signals.ringDoorbell();
        this.wake();
      }
    } catch (error) {
      this.deps.logger.error({ err: error }, "lease reaper failed");
    }
  }

  /** Stops claiming runs at once (the drain's first step); running runs go on. */
  stopClaiming(): void {
    this.stopping = true;
    this.unsubscribe?.();
    for (const timer of this.timers) clearInterval(timer);
    clearTimeout(this.delayedTimer);
  }

  /**
   * Stops taking work, lets running runs finish for up to `graceMs`, then aborts the rest and hands
   * them back to the queue (not counted as an attempt) for the next start. A run whose graph
   * ignores the abort is handed back all the same after `abortWaitMs`: its fenced writes can no
   * longer land, and the caller may exit (steps it checkpointed are kept).
   */
  async stop(graceMs: number, abortWaitMs = ABORT_WAIT_MS): Promise<void> {
    this.stopClaiming();
    const all = () => Promise.all([...this.active.values()].map((a) => a.done));
    await raceTimeout(all(), graceMs);
    for (const { controller } of this.active.values()) controller.abort("shutdown");
    await raceTimeout(all(), abortWaitMs);
    const released = await this.deps.runs.release(this.owner);
    if (released.length) this.deps.logger.info({ runs: released }, "runs handed back to the queue");
    if (this.active.size) {
      this.deps.logger.warn(
        { runs: [...this.active.keys()] },
        "runs ignored their abort; handed back anyway",
      );
    }
  }
}

/** Given to each executing run: the queue's terms for claiming the next run as this one ends. */
export interface NextRunHandoff {
  /** Who claims, when the queue wants the ending run's slot refilled at once; else undefined. */
  claimFor(): ClaimFor | undefined;
  /** Executes a run claimed that way, in the slot the ending run leaves. */
  launch(claim: ClaimedRun): void;
}

/** A slot held by `RunQueue.reserveSlot` for a run claimed in its own create transaction. */
export interface SlotReservation {
  /** The lease owner and lease length the create writes into the claimed row. */
  owner: string;
  leaseMs: number;
  /** Executes the run the create claimed, in this slot. */
  launch(claim: ClaimedRun): void;
  /** Gives the slot back: the run was not claimed at creation (it waits in the queue) or failed. */
  cancel(): void;
}

/** How long aborted runs get to stop before they are handed back regardless. */
const ABORT_WAIT_MS = 2_000;

/** Waits for `promise` at most `ms`. */
async function raceTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
