import type { SqliteRunEventLog } from "./sqlite-log.js";
import type { RunStreamEvent, StreamBroker, StreamMessage } from "./types.js";

interface RunStream {
  nextId: number;
  resumable: boolean;
  ended: boolean;
  /** Kept only for resumable runs without a durable log, bounded by `maxEvents`. */
  events: RunStreamEvent[];
  listeners: Set<(message: StreamMessage) => void>;
  expiry: NodeJS.Timeout | undefined;
}

/**
 * Stream events within one process; a resumable run's events are kept for `ttlMs` after it ends.
 * With a durable `log` (one process on SQLite), a resumable run's events are written there before
 * they are sent, and replays read it, so they outlive a crash with their ids.
 */
export class MemoryStreamBroker implements StreamBroker {
  private readonly runs = new Map<string, RunStream>();
  private readonly log: SqliteRunEventLog | undefined;

  constructor(
    private readonly options: { ttlMs: number; maxEvents: number; log?: SqliteRunEventLog } = {
      ttlMs: 120_000,
      maxEvents: 10_000,
    },
  ) {
    this.log = options.log;
    this.log?.pruneEndedBefore(Date.now() - options.ttlMs);
  }

  private entry(runId: string): RunStream {
    let stream = this.runs.get(runId);
    if (!stream) {
      stream = {
        // Ids continue past any an earlier process or attempt of this run gave out (a client may
        // rejoin with one of those): microseconds since the epoch at first use, then +1 per event.
        // A durable log may hold ids of an earlier process: continue after the last one.
        nextId: Math.max(Date.now() * 1000, (this.log?.lastId(runId) ?? 0) + 1),
        resumable: false,
        ended: false,
        events: [],
        listeners: new Set(),
        expiry: undefined,
      };
      this.runs.set(runId, stream);
    }
    return stream;
  }

  open(runId: string, options: { resumable: boolean }): void {
    const stream = this.entry(runId);
    stream.resumable = options.resumable;
  }

  wanted(runId: string): boolean {
    const stream = this.runs.get(runId);
    return stream !== undefined && !stream.ended && (stream.resumable || stream.listeners.size > 0);
  }

  /** Also returns the event as published (undefined when nobody declared the run or it ended). */
  publish(runId: string, event: string, data: unknown): RunStreamEvent | undefined {
    const stream = this.runs.get(runId);
    if (!stream || stream.ended) return undefined;
    const message: RunStreamEvent = { id: String(stream.nextId++), event, data };
    // Durable before anyone sees it: a client never holds an id a restart would not know.
    if (stream.resumable && this.log) this.log.append(runId, message);
    else if (stream.resumable) {
      stream.events.push(message);
      if (stream.events.length > this.options.maxEvents) stream.events.shift();
    }
    for (const listener of [...stream.listeners]) listener({ kind: "event", event: message });
    return message;
  }

  lastLoggedId(runId: string): number | undefined {
    return this.log?.lastId(runId);
  }

  loggedAfter(runId: string, afterId: number): RunStreamEvent[] {
    return this.log?.after(runId, afterId) ?? [];
  }

  end(runId: string): void {
    const stream = this.runs.get(runId);
    if (!stream || stream.ended) {
      // Nobody declared or watched it: remember the end briefly so a late subscriber is not left waiting.
      if (!stream) this.runs.set(runId, { ...this.entry(runId), ended: true });
      this.expire(runId);
      return;
    }
    stream.ended = true;
    if (stream.resumable && this.log) {
      this.log.ended(runId, Date.now());
      this.log.pruneEndedBefore(Date.now() - this.options.ttlMs);
    }
    for (const listener of [...stream.listeners]) listener({ kind: "end" });
    stream.listeners.clear();
    this.expire(runId);
  }

  private expire(runId: string): void {
    const stream = this.runs.get(runId);
    if (!stream) return;
    clearTimeout(stream.expiry);
    const ttl = stream.resumable ? this.options.ttlMs : Math.min(this.options.ttlMs, 5_000);
    stream.expiry = setTimeout(() => this.runs.delete(runId), ttl);
    stream.expiry.unref();
  }

  subscribe(
    runId: string,
    options: Parameters<StreamBroker["subscribe"]>[1],
    listener: (message: StreamMessage) => void,
  ): () => void {
    const stream = this.entry(runId);
    if (options.lastEventId !== undefined) {
      const after = Number(options.lastEventId);
      for (const event of this.log ? this.log.after(runId, after) : stream.events) {
        if (Number.isNaN(after) || Number(event.id) > after) listener({ kind: "event", event });
      }
    }
    // A stream made by this subscription may belong to a run that ended before: the caller checks.
    options.onReplayed?.({ logged: false });
    if (stream.ended) {
      listener({ kind: "end" });
      return () => {};
    }
    stream.listeners.add(listener);
    return () => {
      stream.listeners.delete(listener);
      // A live-only stream nobody watches any more holds nothing worth keeping.
      if (
        !stream.ended &&
        !stream.resumable &&
        stream.listeners.size === 0 &&
        this.runs.get(runId) === stream
      ) {
        this.runs.delete(runId);
      }
    };
  }

  /** Runs still held (leak checks in tests). */
  get size(): number {
    return this.runs.size;
  }

  /** Stops expiry timers (server shutdown). */
  close(): void {
    for (const stream of this.runs.values()) clearTimeout(stream.expiry);
    this.runs.clear();
  }
}
