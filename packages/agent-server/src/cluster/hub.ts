import type { RunOutcome } from "../queue/types.js";
import type { ChildMessage, HubMessage } from "./protocol.js";

interface LoggedEvent {
  id: string;
  ev: string;
  data: unknown;
}

/** A resumable run's replay log, kept in the primary (children come and go). */
interface RunLog {
  nextId: number;
  ended: boolean;
  events: LoggedEvent[];
  expiry: NodeJS.Timeout | undefined;
}

interface Subscription {
  child: number;
  sub: number;
  run: string;
}

/**
 * The primary's switchboard for the embedded cluster: echoes signals to the other children, keeps
 * resumable runs' replay logs (one id sequence per run, whichever child publishes), and routes a
 * run's events to the children that subscribed to it. It never sends a child its own
 * non-resumable events (the child delivered them locally). Messages from one child arrive in the
 * order it sent them, and the hub handles each at once: that order is what makes the protocol exact
 * (an `exec` after a `sub` is answered "wanted"; a `sub` after an `exec` pushes `interest`).
 */
export class ClusterHub {
  private readonly children = new Map<number, (message: HubMessage) => void>();
  private readonly subs = new Map<string, Subscription>();
  private readonly subsByRun = new Map<string, Set<string>>();
  private readonly logs = new Map<string, RunLog>();
  /** Which child executes a run (from its `exec` to its end). */
  private readonly executors = new Map<string, number>();

  constructor(
    private readonly options: {
      /** How long a resumable run's events stay replayable after it ends. */
      ttlMs: number;
      /** How long a log is kept at most while its run has not ended (run timeout + ttlMs). */
      runTtlMs: number;
      maxEvents: number;
    },
  ) {}

  /** A child's channel is up. */
  attach(child: number, send: (message: HubMessage) => void): void {
    this.children.set(child, send);
  }

  /** A child is gone: its subscriptions and executions are forgotten (the primary recovers its runs). */
  detach(child: number): void {
    this.children.delete(child);
    for (const [key, sub] of this.subs) if (sub.child === child) this.dropSub(key);
    for (const [run, executor] of this.executors) if (executor === child) this.executors.delete(run);
  }

  /** Sends `message` to every child (the primary's own signals: recovered runs, drain). */
  broadcast(message: HubMessage): void {
    for (const send of this.children.values()) send(message);
  }

  /** Runs the primary failed for good: their streams end and their waiters hear it. */
  runsFailed(runIds: string[]): void {
    for (const run of runIds) {
      this.endRun(run, undefined, true);
      this.broadcast({ t: "ended", run, outcome: { status: "error" } satisfies RunOutcome });
    }
  }

  handle(child: number, message: ChildMessage): void {
    switch (message.t) {
      case "door":
      case "cancel":
        this.others(child, message);
        return;
      case "ended":
        this.executors.delete(message.run);
        this.others(child, message);
        return;
      case "exec": {
        this.executors.set(message.run, child);
        const wanted = [...(this.subsByRun.get(message.run) ?? [])].some(
          (key) => this.subs.get(key)?.child !== child,
        );
        this.children.get(child)?.({ t: "answer", run: message.run, wanted });
        return;
      }
      case "pub":
        if (message.logged) this.appendLogged(message.run, message.ev, message.data);
        else
          this.toSubscribers(message.run, child, {
            t: "ev",
            run: message.run,
            id: message.id,
            ev: message.ev,
            data: message.data,
          });
        return;
      case "end":
        this.endRun(message.run, message.logged ? undefined : child, message.logged);
        return;
      case "sub":
        this.subscribe(child, message.sub, message.run, message.last);
        return;
      case "unsub":
        this.dropSub(`${child}:${message.sub}`);
        return;
      default:
        return;
    }
  }

  private others(from: number, message: HubMessage): void {
    for (const [child, send] of this.children) if (child !== from) send(message);
  }

  /** Sends to each child with a subscriber on `run` once, except `except` (the publisher). */
  private toSubscribers(run: string, except: number | undefined, message: HubMessage): void {
    const keys = this.subsByRun.get(run);
    if (!keys) return;
    const sent = new Set<number>();
    for (const key of keys) {
      const sub = this.subs.get(key);
      if (!sub || sub.child === except || sent.has(sub.child)) continue;
      sent.add(sub.child);
      this.children.get(sub.child)?.(message);
    }
  }

  private log(run: string): RunLog {
    let log = this.logs.get(run);
    if (!log) {
      log = { nextId: Date.now() * 1000, ended: false, events: [], expiry: undefined };
      this.logs.set(run, log);
      // A run whose end never comes (its process died for good) must not be held for ever.
      this.expire(run, log, this.options.runTtlMs);
    }
    return log;
  }

  private appendLogged(run: string, ev: string, data: unknown): void {
    const log = this.log(run);
    if (log.ended) return;
    const event = { id: String(log.nextId++), ev, data };
    log.events.push(event);
    if (log.events.length > this.options.maxEvents) log.events.shift();
    this.toSubscribers(run, undefined, { t: "ev", run, ...event });
  }

  private endRun(run: string, except: number | undefined, logged: boolean): void {
    if (logged) {
      const log = this.log(run);
      if (log.ended) return;
      log.ended = true;
      this.expire(run, log, this.options.ttlMs);
    }
    this.executors.delete(run);
    this.toSubscribers(run, except, { t: "end", run });
  }

  private expire(run: string, log: RunLog, ms: number): void {
    clearTimeout(log.expiry);
    log.expiry = setTimeout(() => {
      if (this.logs.get(run) === log) this.logs.delete(run);
    }, ms);
    log.expiry.unref();
  }

  private subscribe(child: number, sub: number, run: string, last: string | undefined): void {
    const send = this.children.get(child);
    if (!send) return;
    const key = `${child}:${sub}`;
    const log = this.logs.get(run);
    if (log) {
      if (last !== undefined) {
        const after = Number(last);
        for (const event of log.events) {
          if (Number.isNaN(after) || Number(event.id) > after) send({ t: "ev", run, ...event, sub });
        }
      }
      if (log.ended) {
        send({ t: "end", run, sub });
        send({ t: "replayed", sub, logged: true });
        return;
      }
    } else {
      const executor = this.executors.get(run);
      if (executor !== undefined && executor !== child) this.children.get(executor)?.({ t: "interest", run });
    }
    this.subs.set(key, { child, sub, run });
    let keys = this.subsByRun.get(run);
    if (!keys) {
      keys = new Set();
      this.subsByRun.set(run, keys);
    }
    keys.add(key);
    send({ t: "replayed", sub, logged: log !== undefined });
  }

  private dropSub(key: string): void {
    const sub = this.subs.get(key);
    if (!sub) return;
    this.subs.delete(key);
    const keys = this.subsByRun.get(sub.run);
    keys?.delete(key);
    if (keys?.size === 0) this.subsByRun.delete(sub.run);
  }

  /** Stops expiry timers (shutdown). */
  close(): void {
    for (const log of this.logs.values()) clearTimeout(log.expiry);
    this.logs.clear();
  }
}
