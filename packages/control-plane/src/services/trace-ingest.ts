import type { Logger } from "pino";
import { mergeWrites, type RunWrite } from "../domain/tracing.js";
import type { TraceStore } from "../storage/types.js";

/** How much the ingest queue holds and how it writes. */
export interface TraceQueueLimits {
  /** Run operations waiting at most; beyond, new ones are dropped (and counted). */
  maxRuns: number;
  /** Payload bytes waiting at most. */
  maxBytes: number;
  /** Run operations per database write. */
  batchRuns: number;
  /** How long the writer waits to gather a batch after the first operation arrives. */
  flushDelayMs: number;
}

/** What the queue reports (the control plane's /metrics). */
export interface TraceQueueMetrics {
  traceRunsAccepted(count: number): void;
  traceRunsDropped(reason: "queue_full" | "write_failed", count: number): void;
  traceRunsWritten(count: number): void;
}

interface Pending {
  writes: RunWrite[];
  bytes: number;
}

/**
 * The bounded, asynchronous path from the ingest endpoints to the database: requests only enqueue
 * (never wait for a write), one writer drains the queue in batches. A full queue drops the new
 * operations with a counter; a failed write drops its batch with a counter and the writer goes on.
 */
export class TraceIngestQueue {
  #queue: Pending[] = [];
  #runs = 0;
  #bytes = 0;
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> | null = null;
  #stopped = false;
  #idle: Array<() => void> = [];

  constructor(
    private readonly store: TraceStore,
    private readonly limits: TraceQueueLimits,
    private readonly metrics: TraceQueueMetrics,
    private readonly logger: Logger,
  ) {}

  /** Run operations waiting. */
  get depth(): number {
    return this.#runs;
  }

  /**
   * Enqueues the operations of one request, all or none; false when they were dropped (the queue
   * is full or stopping).
   */
  offer(writes: RunWrite[], bytes: number): boolean {
    if (writes.length === 0) return true;
    if (
      this.#stopped ||
      this.#runs + writes.length > this.limits.maxRuns ||
      this.#bytes + bytes > this.limits.maxBytes
    ) {
      this.metrics.traceRunsDropped("queue_full", writes.length);
      return false;
    }
    this.#queue.push({ writes, bytes });
    this.#runs += writes.length;
    this.#bytes += bytes;
    this.metrics.traceRunsAccepted(writes.length);
    this.#schedule(this.#runs >= this.limits.batchRuns ? 0 : this.limits.flushDelayMs);
    return true;
  }

  /** Resolves once everything offered so far is written (or dropped). */
  settled(): Promise<void> {
    if (this.#runs === 0 && !this.#writing) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Writes what is queued (up to `graceMs`), then refuses new operations. */
  async stop(graceMs = 5_000): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const deadline = Date.now() + graceMs;
    while ((this.#runs > 0 || this.#writing) && Date.now() < deadline) {
      if (this.#writing) await this.#writing;
      else await this.#drainOnce();
    }
    if (this.#runs > 0) this.metrics.traceRunsDropped("write_failed", this.#runs);
    this.#queue = [];
    this.#runs = 0;
    this.#bytes = 0;
    this.#wakeIdle();
  }

  #schedule(delayMs: number): void {
    if (this.#writing || this.#stopped) return;
    if (this.#timer && delayMs > 0) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.#drainOnce();
    }, delayMs);
  }

  #take(): { writes: RunWrite[]; bytes: number } {
    const writes: RunWrite[] = [];
    let bytes = 0;
    while (this.#queue.length > 0 && writes.length < this.limits.batchRuns) {
      const next = this.#queue.shift() as Pending;
      writes.push(...next.writes);
      bytes += next.bytes;
    }
    this.#runs -= writes.length;
    this.#bytes -= bytes;
    return { writes, bytes };
  }

  #drainOnce(): Promise<void> {
    if (this.#writing) return this.#writing;
    const { writes } = this.#take();
    if (writes.length === 0) {
      this.#wakeIdle();
      return Promise.resolve();
    }
    this.#writing = (async () => {
      // One statement row per run: a post and its patch in the same batch become one write.
      const merged = new Map<string, RunWrite>();
      for (const write of writes) {
        const key = `${write.tenant_id}\u0000${write.id}`;
        const earlier = merged.get(key);
        merged.set(key, earlier ? mergeWrites(earlier, write) : write);
      }
      try {
        await this.store.write([...merged.values()], Date.now());
        this.metrics.traceRunsWritten(writes.length);
      } catch (error) {
        this.metrics.traceRunsDropped("write_failed", writes.length);
        this.logger.warn(
          { err: error, runs: writes.length },
          "tracing: a batch of runs could not be written",
        );
      }
    })().finally(() => {
      this.#writing = null;
      if (this.#runs > 0 && !this.#stopped) this.#schedule(0);
      else if (this.#runs === 0) this.#wakeIdle();
    });
    return this.#writing;
  }

  #wakeIdle(): void {
    const idle = this.#idle;
    this.#idle = [];
    for (const resolve of idle) resolve();
  }
}
