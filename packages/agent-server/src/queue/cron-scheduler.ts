import { RunCreateStateful } from "@berth-platform/schemas";
import type { Logger } from "pino";
import { nextOccurrence } from "../domain/cron-schedule.js";
import type { RunService } from "../services/runs.js";
import type { CronRecord, CronStore } from "../storage/types.js";

/** setTimeout's largest delay; a later occurrence is reached by re-arming. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Fires due crons. One timer is armed for the earliest occurrence (no polling); each firing claims
 * the occurrence and moves `next_run_at` on in one transaction, then creates the run through the
 * RunService, so multitask rules, the durable queue and webhooks apply as for any other run.
 */
export class CronScheduler {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private tickAgain = false;
  private stopped = true;

  constructor(
    private readonly deps: {
      crons: CronStore;
      runs: RunService;
      logger: Logger;
      now?: () => number;
    },
  ) {}

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** Starts firing: occurrences missed while the server was down fire once, now. */
  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Re-reads the schedule (after a cron changed) and fires what is due; concurrent calls coalesce. */
  wake(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = this.tick().finally(() => {
      this.ticking = undefined;
      if (this.tickAgain) {
        this.tickAgain = false;
        this.wake();
      }
    });
  }

  private async tick(): Promise<void> {
    const { crons, logger } = this.deps;
    try {
      const nowMs = this.now();
      // A missed backlog collapses into one run: the next occurrence counts from now.
      const due = await crons.claimDue(nowMs, (cron) =>
        nextOccurrence(cron.schedule, cron.timezone, nowMs, cron.end_time ? Date.parse(cron.end_time) : null),
      );
      for (const cron of due) await this.fire(cron);
      await this.arm();
    } catch (error) {
      logger.error({ err: error }, "cron scheduling failed; retrying in a minute");
      await this.arm(60_000);
    }
  }

  private async fire(cron: CronRecord): Promise<void> {
    const log = this.deps.logger.child({ cron_id: cron.cron_id });
    try {
      const body = RunCreateStateful.parse({ ...cron.payload, assistant_id: cron.assistant_id });
      const caller = { userId: cron.user_id ?? "" };
      const run = cron.thread_id
        ? await this.deps.runs.createForThread(
            cron.thread_id,
            { ...body, multitask_strategy: body.multitask_strategy ?? "enqueue" },
            caller,
          )
        : await this.deps.runs.createStateless(
            { ...body, on_completion: cron.on_run_completed ?? "delete" },
            caller,
          );
      log.debug({ run_id: run.run_id, thread_id: run.thread_id }, "cron fired");
    } catch (error) {
      // This occurrence is skipped (busy thread under reject, deleted assistant…); later ones still fire.
      log.warn({ err: error }, "cron occurrence could not create its run");
    }
  }

  private async arm(delayMs?: number): Promise<void> {
    clearTimeout(this.timer);
    if (this.stopped) return;
    let wait = delayMs;
    if (wait === undefined) {
      const next = await this.deps.crons.nextDueAt();
      if (next === undefined || this.stopped) return;
      wait = Math.max(0, next - this.now());
    }
    this.timer = setTimeout(() => this.wake(), Math.min(wait, MAX_TIMER_MS));
  }

  /** Stops the timer and waits for a firing in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
    clearTimeout(this.timer);
  }
}
