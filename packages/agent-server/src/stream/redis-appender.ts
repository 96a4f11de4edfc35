import { STREAM_APPEND_SCRIPT, STREAM_APPEND_SHA } from "@berth-platform/server-kit";
import type { Redis } from "ioredis";

/** KEYS count, log key, channel, max length, payload, TTL in ms: the append script's arguments. */
export type AppendArgs = readonly [2, string, string, number, string, number];

/**
 * Runs the stream append script by EVALSHA, pipelined, keeping the order of appends even when
 * Redis has lost the script (a restart). EVAL only when Redis does not hold the script (not
 * ioredis's defineCommand, which sends EVAL first on every new connection): a deployment's Redis
 * user behind the control plane may not run EVAL, and the control plane loads the script for it.
 *
 * Why the care: after a restart every EVALSHA already sent is refused (NOSCRIPT) and re-sent as
 * EVAL when its refusal comes back; an append made meanwhile would find the script loaded by the
 * first EVAL and be logged before the older ones still waiting to be re-sent. So from the first
 * refusal on, new appends wait until every EVALSHA sent before has been answered (and each refused
 * one re-sent, in order, on the same connection).
 */
export class StreamAppender {
  /** EVALSHAs sent and not answered yet. */
  private inflight = 0;
  /** A NOSCRIPT came back: appends wait in `waiting` until the earlier ones are re-sent. */
  private repairing = false;
  private readonly waiting: AppendArgs[] = [];

  constructor(
    private readonly redis: Redis,
    private readonly failed: (error: unknown, args: AppendArgs) => void,
  ) {}

  append(args: AppendArgs): void {
    if (this.repairing) this.waiting.push(args);
    else this.send(args);
  }

  private send(args: AppendArgs): void {
    this.inflight += 1;
    this.redis.evalsha(STREAM_APPEND_SHA, ...args).then(
      () => this.settled(),
      (error: unknown) => {
        if (/NOSCRIPT/.test((error as Error).message ?? "")) {
          this.repairing = true;
          // Sent now, synchronously: refusals come back in the order the EVALSHAs went out.
          this.redis.eval(STREAM_APPEND_SCRIPT, ...args).catch((e: unknown) => this.failed(e, args));
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
    for (const args of this.waiting.splice(0)) this.send(args);
  }
}
