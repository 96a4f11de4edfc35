import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { StreamAppender } from "./redis-appender.js";
import { type QuietExecution, QuietRuns } from "./redis-quiet.js";
import type { RunStreamEvent, StreamBroker, StreamMessage } from "./types.js";

/** Marks the end of a run's stream in its log. */
const END = "__end__";

type Listener = (message: StreamMessage) => void;

interface Subscription {
  listener: Listener;
  /** Id of the last event delivered (or the log's tail when it was made): later ones only. */
  lastId: string;
  /** Catching up from the log; live messages wait in `held` meanwhile. */
  catchingUp: boolean;
  held: Array<{ id: string; payload: string }>;
  closed: boolean;
}

/**
 * Carries run events between processes: each run has a log in a Redis stream (kept `ttlMs` after
 * the run ends, at most `maxEvents`) and a pub/sub channel for live delivery. A subscriber listens
 * on the channel first, then reads the log after its Last-Event-ID, and drops live messages it
 * already read: no gap, no duplicate, on any process. Event ids are the log's ids. After a Redis
 * outage each subscriber catches up from the log where it stopped.
 *
 * A run that is not resumable reaches Redis only once someone listens (issue 31: most runs are
 * joined, not streamed). A subscriber announces itself (a key per run, and a message on the
 * interest channel every process hears); the worker executing the run asks for the key when it
 * starts (events wait meanwhile), holds the run's events while nobody listens, and on an
 * announcement writes what it held to the log, then the rest as it comes: a listener misses
 * nothing a subscriber of the log would have read. An end nobody heard is remembered a few seconds.
 */
export class RedisStreamBroker implements StreamBroker {
  private readonly subs = new Map<string, Set<Subscription>>();
  /** Per run, the SUBSCRIBE of its channel: every subscriber reads the log only after it. */
  private readonly listening = new Map<string, Promise<unknown>>();
  private readonly redis: Redis;
  private readonly appender: StreamAppender;
  private readonly quiet = new QuietRuns();
  private readonly interestChannel: string;

  constructor(
    pub: Redis,
    private readonly sub: Redis,
    private readonly options: {
      prefix: string;
      ttlMs: number;
      /** How long a running run's log is kept without new events. */
      runTtlMs: number;
      maxEvents: number;
      logger: Logger;
    },
  ) {
    this.redis = pub;
    this.appender = new StreamAppender(pub, (error, args) =>
      this.options.logger.warn({ err: error, stream: args[1] }, "stream event not stored"),
    );
    this.interestChannel = `${options.prefix}interest`;
    this.sub.on("message", (channel: string, text: string) => {
      // The append script's message: the entry's id, a newline, the run id.
      if (channel === this.interestChannel) this.onInterest(text.slice(text.indexOf("\n") + 1));
      else this.onLive(channel, text);
    });
    // ioredis subscribes once connected, and again after each reconnect.
    this.sub
      .subscribe(this.interestChannel)
      .catch((error: unknown) =>
        options.logger.warn({ err: error }, "stream interest channel not subscribed"),
      );
    // Messages published while the connection was down are in the logs: catch up from there.
    this.sub.on("ready", () => void this.resume());
  }

  /**
   * After a reconnect: hold live messages, wait until the channels are subscribed again, then read
   * the logs. ioredis re-subscribes on its own but says "ready" before Redis has confirmed it; a log
   * read in between misses what is appended after the read and published before the SUBSCRIBE
   * (lost for good: in neither the read nor the live messages). Our own SUBSCRIBE of the same
   * channels, on the same connection, is answered only after ioredis's.
   */
  private async resume(): Promise<void> {
    // Announcements made while this connection was down were not heard: ask for the keys.
    for (const [runId, execution] of this.quiet.notForwarding()) this.askListeners(runId, execution);
    const runIds = [...this.subs.keys()];
    if (runIds.length === 0) return;
    for (const set of this.subs.values()) for (const s of set) s.catchingUp = true;
    try {
      await this.sub.subscribe(...runIds.map((runId) => this.channel(runId)));
    } catch (error) {
      // Down again: the next "ready" resumes. Until then live messages stay held.
      this.options.logger.warn({ err: error }, "stream re-subscription failed; retried on reconnect");
      return;
    }
    for (const runId of runIds) {
      const set = this.subs.get(runId);
      // Its last subscriber left meanwhile: drop the channel subscribed again above.
      if (!set) this.sub.unsubscribe(this.channel(runId)).catch(() => {});
      else for (const s of set) void this.catchUp(runId, s);
    }
  }

  private key(runId: string): string {
    return `${this.options.prefix}stream:${runId}`;
  }

  private channel(runId: string): string {
    return `${this.options.prefix}live:${runId}`;
  }

  private listenKey(runId: string): string {
    return `${this.options.prefix}listen:${runId}`;
  }

  open(runId: string, options: { resumable: boolean; executing?: boolean }): void {
    if (!options.executing) {
      this.quiet.declare(runId, options.resumable);
      return;
    }
    // A resumable run's events are all logged (a client may replay it from any process).
    if (options.resumable) return;
    const execution = this.quiet.start(runId);
    if (this.subs.has(runId) || this.quiet.wasHeard(runId)) {
      this.forward(runId, execution);
      return;
    }
    // Created here just now: a listener would have announced itself to this process already.
    if (this.quiet.declaredQuietSince(runId)) {
      execution.mode = "quiet";
      return;
    }
    this.askListeners(runId, execution);
  }

  /** Whether the run's listen key is there (a listener announced itself, maybe unheard here). */
  private askListeners(runId: string, execution: QuietExecution): void {
    this.redis.exists(this.listenKey(runId)).then(
      (listened) => {
        if (listened > 0) this.forward(runId, execution);
        else if (execution.mode === "asking") execution.mode = "quiet";
      },
      // Not known: logged, as every run was.
      () => this.forward(runId, execution),
    );
  }

  wanted(): boolean {
    // Listeners may be on any process; a quiet run's events are held for one that arrives.
    return true;
  }

  publishLazily(runId: string, produce: () => Array<{ event: string; data: unknown }>): void {
    const execution = this.quiet.executions.get(runId);
    if (execution && execution.mode !== "forward") this.quiet.hold(execution, { produce });
    else for (const { event, data } of produce()) this.publish(runId, event, data);
  }

  publish(runId: string, event: string, data: unknown): void {
    const execution = this.quiet.executions.get(runId);
    if (execution && execution.mode !== "forward") {
      this.quiet.hold(execution, { event, data });
      return;
    }
    // The acceptance's `metadata` (published by the API process, which may not execute the run)
    // is always logged: a listener that joins later from any process reads it first, before what
    // the run's worker held and writes once it hears of that listener.
    this.append(runId, JSON.stringify({ event, data }), this.options.runTtlMs, false);
  }

  end(runId: string): void {
    const execution = this.quiet.executions.get(runId);
    if (execution && execution.mode !== "forward") {
      this.quiet.hold(execution, { event: END, data: undefined });
      this.quiet.ended(runId, execution);
      return;
    }
    if (execution) this.quiet.executions.delete(runId);
    this.append(runId, JSON.stringify({ event: END, data: null }), this.options.ttlMs, true);
  }

  /** Someone listens to a run: a quiet execution here writes what it held, then goes on writing. */
  private onInterest(runId: string): void {
    this.quiet.hear(runId);
    const execution = this.quiet.executions.get(runId);
    if (execution && execution.mode !== "forward") this.forward(runId, execution);
  }

  private forward(runId: string, execution: QuietExecution): void {
    execution.mode = "forward";
    for (const held of execution.held.splice(0)) {
      for (const { event, data } of "produce" in held ? held.produce() : [held]) {
        if (event === END) {
          if (this.quiet.executions.get(runId) === execution) this.quiet.executions.delete(runId);
          this.append(runId, JSON.stringify({ event: END, data: null }), this.options.ttlMs, true);
        } else this.append(runId, JSON.stringify({ event, data }), this.options.runTtlMs, false);
      }
    }
  }

  private append(runId: string, payload: string, ttlMs: number, last: boolean): void {
    // Commands queue while Redis is down and go out in order when it is back.
    const args = [2, this.key(runId), this.channel(runId), this.options.maxEvents, payload, ttlMs] as const;
    this.appender.append(args, last);
  }

  subscribe(
    runId: string,
    options: Parameters<StreamBroker["subscribe"]>[1],
    listener: Listener,
  ): () => void {
    const subscription: Subscription = {
      listener,
      lastId: "0-0",
      catchingUp: true,
      held: [],
      closed: false,
    };
    let set = this.subs.get(runId);
    if (!set) {
      set = new Set();
      this.subs.set(runId, set);
      this.listening.set(runId, this.sub.subscribe(this.channel(runId)));
    }
    set.add(subscription);
    // Announced at once (before a create's doorbell, on the same connection): the run's worker,
    // here or elsewhere, sends its events from now on, and what it held so far.
    // One append script call: the key (a one-entry log) and the message on the interest channel,
    // with the commands a deployment's Redis user may send (no SET).
    this.appender.append(
      [2, this.listenKey(runId), this.interestChannel, 1, runId, this.options.runTtlMs],
      true,
    );
    this.onInterest(runId);
    const listening = this.listening.get(runId);
    void (async () => {
      try {
        await listening;
        if (options.lastEventId === undefined) {
          // Live only: from the log's current tail (an ended stream still says so).
          const tail = await this.redis.xrevrange(this.key(runId), "+", "-", "COUNT", 1);
          const last = tail[0];
          if (last) {
            const payload = last[1][1] ?? "";
            subscription.lastId = last[0];
            if (parsePayload(payload)?.event === END) {
              subscription.lastId = previousId(last[0]);
            }
          }
        } else subscription.lastId = toStreamId(options.lastEventId);
        await this.catchUp(runId, subscription);
        options.onReplayed?.({ logged: (await this.redis.exists(this.key(runId))) > 0 });
      } catch (error) {
        this.options.logger.warn({ err: error, run_id: runId }, "stream subscription failed");
        options.onReplayed?.({ logged: false });
      }
    })();
    return () => {
      subscription.closed = true;
      const current = this.subs.get(runId);
      if (!current) return;
      current.delete(subscription);
      if (current.size === 0) {
        this.subs.delete(runId);
        this.listening.delete(runId);
        this.sub.unsubscribe(this.channel(runId)).catch(() => {});
      }
    };
  }

  /** Delivers the log after the subscription's last id, then what arrived live meanwhile. */
  private async catchUp(runId: string, s: Subscription): Promise<void> {
    s.catchingUp = true;
    try {
      const entries = await this.redis.xrange(this.key(runId), `(${s.lastId}`, "+");
      for (const [id, fields] of entries) this.deliver(s, id, fields[1] ?? "");
    } catch (error) {
      this.options.logger.warn({ err: error, run_id: runId }, "stream catch-up failed; retried on reconnect");
    } finally {
      s.catchingUp = false;
      for (const held of s.held.splice(0)) this.deliver(s, held.id, held.payload);
    }
  }

  private onLive(channel: string, text: string): void {
    const prefix = `${this.options.prefix}live:`;
    if (!channel.startsWith(prefix)) return;
    const set = this.subs.get(channel.slice(prefix.length));
    if (!set) return;
    const newline = text.indexOf("\n");
    const id = text.slice(0, newline);
    const payload = text.slice(newline + 1);
    for (const s of [...set]) {
      if (s.catchingUp) s.held.push({ id, payload });
      else this.deliver(s, id, payload);
    }
  }

  private deliver(s: Subscription, id: string, payload: string): void {
    if (s.closed || compareIds(id, s.lastId) <= 0) return;
    const parsed = parsePayload(payload);
    if (!parsed) return;
    s.lastId = id;
    if (parsed.event === END) {
      s.closed = true;
      s.listener({ kind: "end" });
      return;
    }
    const event: RunStreamEvent = { id, event: parsed.event, data: parsed.data };
    s.listener({ kind: "event", event });
  }

  /** Nothing to stop: the connections belong to the composition root. */
  close(): void {
    this.subs.clear();
    this.listening.clear();
  }
}

function parsePayload(payload: string): { event: string; data: unknown } | undefined {
  try {
    return JSON.parse(payload) as { event: string; data: unknown };
  } catch {
    return undefined;
  }
}

const STREAM_ID = /^(\d{1,16})-(\d{1,16})$/;

/** A Last-Event-ID as a stream id; "-1" or anything else unknown means "from the start". */
function toStreamId(lastEventId: string): string {
  return STREAM_ID.test(lastEventId) ? lastEventId : "0-0";
}

/** Orders two stream ids ("ms-seq"). */
function compareIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split("-").map(Number);
  const [bm = 0, bs = 0] = b.split("-").map(Number);
  return am === bm ? as - bs : am - bm;
}

/** The id just before `id`, so a live-only subscriber to an ended stream still reads its end. */
function previousId(id: string): string {
  const [ms = 0, seq = 0] = id.split("-").map(Number);
  return seq > 0 ? `${ms}-${seq - 1}` : `${ms - 1}-${Number.MAX_SAFE_INTEGER}`;
}
