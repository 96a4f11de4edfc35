import { STREAM_APPEND_SCRIPT, STREAM_APPEND_SHA } from "@berth-platform/server-kit";
import type { Redis } from "ioredis";

/** KEYS count, log key, channel, max length, payload, TTL in ms: the append script's arguments. */
export type AppendArgs = readonly [2, string, string, number, string, number];

/** What this process appended to one log, while the log may still be read. */
interface Kept {
  channel: string;
  ttlMs: number;
  maxEvents: number;
  entries: Array<{ id: string; payload: string }>;
}

/**
 * Bounds of what a process keeps: the logs least recently appended to are dropped first (an API
 * process appends only a run's first event and never its end, so its logs leave this way).
 */
const KEPT_CHARS = 32 * 1024 * 1024;
const KEPT_LOGS = 2_000;

/**
 * Runs the stream append script by EVALSHA, pipelined, keeping the order of appends even when
 * Redis has lost the script (a restart). EVAL only when Redis does not hold the script (not
 * ioredis's defineCommand, which sends EVAL first on every new connection): a deployment's Redis
 * user behind the control plane may not run EVAL, and the control plane loads the script for it.
 *
 * Order: after a restart every EVALSHA already sent is refused (NOSCRIPT) and re-sent as EVAL when
 * its refusal comes back; an append made meanwhile would find the script loaded by the first EVAL
 * and be logged before the older ones still waiting to be re-sent. So from the first refusal on,
 * new appends wait until every EVALSHA sent before has been answered (and each refused one re-sent,
 * in order, on the same connection).
 *
 * Loss: a Redis that lost its script lost its data too (a restart without persistence), and with
 * it the events it had stored but no subscriber had read yet. So the appender keeps what it stored
 * for each log until the log's last event, and on the first refusal writes it back under the same
 * ids (XADD with the id, PUBLISH for subscribers already back) before anything else. Where the log
 * survived (a SCRIPT FLUSH), Redis refuses those ids as too small and subscribers drop the repeats.
 */
export class StreamAppender {
  /** EVALSHAs sent and not answered yet. */
  private inflight = 0;
  /** A NOSCRIPT came back: appends wait in `waiting` until the earlier ones are re-sent. */
  private repairing = false;
  private readonly waiting: Array<{ args: AppendArgs; last: boolean }> = [];
  private readonly kept = new Map<string, Kept>();
  private keptChars = 0;

  constructor(
    private readonly redis: Redis,
    private readonly failed: (error: unknown, args: AppendArgs) => void,
  ) {}

  /** `last`: the log's final event (its end): nothing of it is kept any more once it is stored. */
  append(args: AppendArgs, last = false): void {
    if (this.repairing) this.waiting.push({ args, last });
    else this.send(args, last);
  }

  private send(args: AppendArgs, last: boolean): void {
    this.inflight += 1;
    this.redis.evalsha(STREAM_APPEND_SHA, ...args).then(
      (id) => {
        this.stored(args, id, last);
        this.settled();
      },
      (error: unknown) => {
        if (/NOSCRIPT/.test((error as Error).message ?? "")) {
          if (!this.repairing) this.restore();
          this.repairing = true;
          // Sent now, synchronously: refusals come back in the order the EVALSHAs went out.
          this.redis.eval(STREAM_APPEND_SCRIPT, ...args).then(
            (id) => this.stored(args, id, last),
            (e: unknown) => this.failed(e, args),
          );
        } else this.failed(error, args);
        this.settled();
      },
    );
  }

  private settled(): void {
    this.inflight -= 1;
    if (this.inflight > 0 || !this.repairing) return;
    this.repairing = false;
    // Behind the EVALs on the same connection: the script is loaded again when these arrive.
    for (const { args, last } of this.waiting.splice(0)) this.send(args, last);
  }

  private stored(args: AppendArgs, id: unknown, last: boolean): void {
    const [, key, channel, maxEvents, payload, ttlMs] = args;
    if (last) {
      this.forget(key);
      return;
    }
    if (typeof id !== "string") return;
    let kept = this.kept.get(key);
    if (kept) this.kept.delete(key);
    else kept = { channel, ttlMs, maxEvents, entries: [] };
    // Re-inserted: the map's order is the order of the last append.
    this.kept.set(key, kept);
    kept.ttlMs = ttlMs;
    kept.entries.push({ id, payload });
    this.keptChars += payload.length;
    if (kept.entries.length > kept.maxEvents) this.keptChars -= kept.entries.shift()?.payload.length ?? 0;
    for (const oldest of this.kept.keys()) {
      if (this.kept.size <= KEPT_LOGS && this.keptChars <= KEPT_CHARS) break;
      this.forget(oldest);
    }
  }

  private forget(key: string): void {
    for (const entry of this.kept.get(key)?.entries ?? []) this.keptChars -= entry.payload.length;
    this.kept.delete(key);
  }

  /** Writes back what this process stored in logs not yet ended, under the same ids, in order. */
  private restore(): void {
    const ignore = () => {};
    for (const [key, kept] of this.kept) {
      for (const { id, payload } of kept.entries) {
        this.redis.xadd(key, id, "p", payload).catch(ignore);
        this.redis.publish(kept.channel, `${id}\n${payload}`).catch(ignore);
      }
      this.redis.pexpire(key, kept.ttlMs).catch(ignore);
    }
  }
}
