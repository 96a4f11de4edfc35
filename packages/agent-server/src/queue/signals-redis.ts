import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { MemoryRunSignals } from "./signals-memory.js";
import { type RunOutcome, type RunSignals, withoutStoredValues } from "./types.js";

/** One message on the signal channel: what happened, and the process that said it. */
type SignalMessage =
  | { from: string; kind: "doorbell" }
  | { from: string; kind: "cancel"; runId: string }
  | { from: string; kind: "ended"; runId: string; outcome: RunOutcome };

/** While no other process listened at the last publish, wake-ups and ends are sent this seldom. */
const ALONE_RECHECK_MS = 1_000;

/**
 * Signals across processes over Redis pub/sub: every signal is delivered in this process at once
 * (as MemoryRunSignals does) and published for the others. A message lost while Redis is down only
 * delays work: workers poll the queue, waiters re-check the run, workers re-read cancellations.
 *
 * A process alone on its channel (PUBLISH answered that only its own connection heard the last
 * one) does not publish doorbells and run ends for nobody: it publishes one at most every second,
 * whose answer says when another process has come. Until then that process's waiters and workers
 * lose nothing but a wake-up, which their re-checks and polls cover. Cancels always go out.
 */
export class RedisRunSignals implements RunSignals {
  private readonly local = new MemoryRunSignals();
  private readonly id = randomUUID();
  private readonly channel: string;
  /** Whether the last publish reached another process, and when it was answered. */
  private others = true;
  private answeredAt = 0;
  /** This process's own subscription is confirmed (so a PUBLISH's count includes it). */
  private subscribed = false;

  constructor(
    private readonly pub: Redis,
    private readonly sub: Redis,
    prefix: string,
    private readonly logger: Logger,
  ) {
    this.channel = `${prefix}signals`;
  }

  /** Subscribes to the other processes' signals. */
  async start(): Promise<void> {
    // This process's own messages come back too: recognised before parsing (`from` is first).
    const own = `{"from":${JSON.stringify(this.id)},`;
    this.sub.on("message", (channel: string, text: string) => {
      if (channel !== this.channel || text.startsWith(own)) return;
      let message: SignalMessage;
      try {
        message = JSON.parse(text) as SignalMessage;
      } catch {
        return;
      }
      if (message.from === this.id) return;
      if (message.kind === "doorbell") this.local.ringDoorbell();
      else if (message.kind === "cancel") this.local.cancel(message.runId);
      else this.local.runEnded(message.runId, message.outcome);
    });
    // Not awaited when Redis is down at start-up: ioredis subscribes once it connects.
    await Promise.race([
      this.sub.subscribe(this.channel).then(() => {
        this.subscribed = true;
      }),
      new Promise((resolve) => setTimeout(resolve, 2_000)),
    ]);
  }

  /** `needed`: sent even while this process seems alone (cancels). */
  private send(message: SignalMessage, needed = false): void {
    if (!needed && !this.others && Date.now() - this.answeredAt < ALONE_RECHECK_MS) return;
    this.pub.publish(this.channel, JSON.stringify(message)).then(
      // This process's own subscription hears it too.
      (receivers) => {
        this.others = receivers > (this.subscribed ? 1 : 0);
        this.answeredAt = Date.now();
      },
      (error: unknown) => this.logger.debug({ err: error }, "signal not published"),
    );
  }

  ringDoorbell(): void {
    this.local.ringDoorbell();
    this.send({ from: this.id, kind: "doorbell" });
  }

  onDoorbell(listener: () => void): () => void {
    return this.local.onDoorbell(listener);
  }

  cancel(runId: string): void {
    this.local.cancel(runId);
    this.send({ from: this.id, kind: "cancel", runId }, true);
  }

  onCancel(runId: string, listener: () => void): () => void {
    return this.local.onCancel(runId, listener);
  }

  runEnded(runId: string, outcome: RunOutcome): void {
    this.local.runEnded(runId, outcome);
    this.send({ from: this.id, kind: "ended", runId, outcome: withoutStoredValues(outcome) });
  }

  onRunEnded(runId: string, listener: (outcome: RunOutcome) => void): () => void {
    return this.local.onRunEnded(runId, listener);
  }
}
