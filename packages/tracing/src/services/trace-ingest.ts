import type { Logger } from "pino";
import { mergeWrites, type RunWrite } from "../domain/tracing.js";
import { ServiceUnavailableError } from "../errors.js";
import type { TraceStore } from "../storage/types.js";

/** How much the ingest queue holds and how it writes. */
export interface TraceQueueLimits {
  /** Run operations waiting at most; beyond, new requests are refused (503, counted). */
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

/** What became of one request's operations once their batch was committed. */
export interface IngestOutcome {
  /** Writes refused because their run belongs to another deployment (nothing of it changed). */
  refused: RunWrite[];
}

interface Pending {
  writes: RunWrite[];
  bytes: number;
  settle(outcome: IngestOutcome): void;
  fail(error: unknown): void;
}

/** The queue holds as much as it may: the client should send again shortly (503 + Retry-After). */
export class TraceQueueFullError extends ServiceUnavailableError {
  constructor() {
    super("The trace ingest queue is full; send again shortly.", 2);
  }
}

/** The writer of a run write: its deployment (ingest key) or none (a workspace API key). */
function writerOf(write: RunWrite): string {
  return write.writer_deployment_id ?? "";
}

/** One run of one writer: writes with the same key are merged into one row write. */
function keyOf(write: RunWrite): string {
  return `${write.tenant_id}\u0000${write.id}\u0000${writerOf(write)}`;
}

/**
 * The path from the ingest endpoints to the database, committed before the request is answered:
 * a 202 means the runs are stored. Requests that arrive while a batch is being written wait for
 * the next one, so many requests share one transaction (group commit). The queue is bounded; a
 * full queue or a failed write rejects the requests concerned (503, the SDK sends them again), so
 * nothing answered 202 is lost.
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
   * Writes the operations of one request with the next batch; resolves once they are committed
   * (with the writes refused as another deployment's runs), rejects with TraceQueueFullError
   * when the queue is full or stopping, or with the database's error when the write failed.
   */
  offer(writes: RunWrite[], bytes: number): Promise<IngestOutcome> {
    if (writes.length === 0) return Promise.resolve({ refused: [] });
    if (
      this.#stopped ||
      this.#runs + writes.length > this.limits.maxRuns ||
      this.#bytes + bytes > this.limits.maxBytes
    ) {
      this.metrics.traceRunsDropped("queue_full", writes.length);
      return Promise.reject(new TraceQueueFullError());
    }
    return new Promise<IngestOutcome>((settle, fail) => {
      this.#queue.push({ writes, bytes, settle, fail });
      this.#runs += writes.length;
      this.#bytes += bytes;
      this.metrics.traceRunsAccepted(writes.length);
      this.#schedule(this.#runs >= this.limits.batchRuns ? 0 : this.limits.flushDelayMs);
    });
  }

  /** Resolves once everything offered so far is written (or refused). */
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
    for (const pending of this.#queue) pending.fail(new TraceQueueFullError());
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

  #take(): Pending[] {
    const taken: Pending[] = [];
    let runs = 0;
    let bytes = 0;
    while (this.#queue.length > 0 && runs < this.limits.batchRuns) {
      const next = this.#queue.shift() as Pending;
      taken.push(next);
      runs += next.writes.length;
      bytes += next.bytes;
    }
    this.#runs -= runs;
    this.#bytes -= bytes;
    return taken;
  }

  #drainOnce(): Promise<void> {
    if (this.#writing) return this.#writing;
    const taken = this.#take();
    if (taken.length === 0) {
      this.#wakeIdle();
      return Promise.resolve();
    }
    this.#writing = (async () => {
      const count = taken.reduce((n, p) => n + p.writes.length, 0);
      try {
        const refused = await this.#write(taken.flatMap((p) => p.writes));
        this.metrics.traceRunsWritten(count - refused.size);
        for (const pending of taken) {
          pending.settle({ refused: pending.writes.filter((write) => refused.has(keyOf(write))) });
        }
      } catch (error) {
        this.metrics.traceRunsDropped("write_failed", count);
        this.logger.warn(
          { err: error, runs: count },
          "tracing: a batch of runs could not be written; its requests are answered with an error",
        );
        for (const pending of taken) pending.fail(error);
      }
    })().finally(() => {
      this.#writing = null;
      if (this.#runs > 0 && !this.#stopped) this.#schedule(0);
      else if (this.#runs === 0) this.#wakeIdle();
    });
    return this.#writing;
  }

  /** Writes a batch, one row write per run and writer; returns the keys of the refused ones. */
  async #write(writes: RunWrite[]): Promise<Set<string>> {
    // A post and its patch in the same batch become one write.
    const merged = new Map<string, RunWrite>();
    for (const write of writes) {
      const key = keyOf(write);
      const earlier = merged.get(key);
      merged.set(key, earlier ? mergeWrites(earlier, write) : write);
    }
    const refused = new Set<string>();
    for (const write of await this.store.write([...merged.values()], Date.now())) refused.add(keyOf(write));
    return refused;
  }

  #wakeIdle(): void {
    const idle = this.#idle;
    this.#idle = [];
    for (const resolve of idle) resolve();
  }
}
