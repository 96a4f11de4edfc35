import { MemoryStreamBroker } from "../stream/memory.js";
import type { RunStreamEvent, StreamBroker, StreamMessage } from "../stream/types.js";
import type { HubChannel } from "./hub-link.js";
import type { HubMessage } from "./protocol.js";

/** A run this child executes without a replay log: whether its events must cross to the hub. */
interface Execution {
  /** `asking`: the hub has not said yet whether another child listens; events wait in `buffer`. */
  mode: "asking" | "forward" | "quiet";
  buffer: RunStreamEvent[];
  ended: boolean;
  expiry: NodeJS.Timeout | undefined;
}

interface HubSubscriber {
  run: string;
  /** Until the hub's `replayed`: live events meanwhile precede the subscription and are dropped. */
  pending: boolean;
  listener: (message: StreamMessage) => void;
  onReplayed: ((info: { logged: boolean }) => void) | undefined;
}

/** How long an ended execution is remembered for a subscriber whose interest arrives late. */
const ENDED_MEMORY_MS = 5_000;

/**
 * The stream broker of a child of the embedded cluster. A non-resumable run's events are delivered
 * here at once and cross to the hub only when a subscriber on another child needs them: the hub
 * answers each execution's `exec` (events wait meanwhile) and later pushes `interest`. A resumable
 * run's events all go to the hub, which keeps the replay log and gives the ids, so a Last-Event-ID
 * works whichever child the client reaches. Subscribers listen here and at the hub; the two carry
 * disjoint events (the hub never returns a child its own non-resumable events).
 */
export class RelayStreamBroker implements StreamBroker {
  private readonly local: MemoryStreamBroker;
  /** Runs whose events the hub logs (declared resumable in this process). */
  private readonly logged = new Set<string>();
  private readonly executions = new Map<string, Execution>();
  private readonly subscribers = new Map<number, HubSubscriber>();
  private readonly subscribersByRun = new Map<string, Set<number>>();
  private nextSub = 1;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly hub: HubChannel,
    options: { ttlMs: number; maxEvents: number },
  ) {
    this.local = new MemoryStreamBroker(options);
    this.unsubscribe = hub.onMessage((message) => this.receive(message));
  }

  open(runId: string, options: { resumable: boolean; executing?: boolean }): void {
    this.local.open(runId, { resumable: false });
    if (options.resumable) {
      this.logged.add(runId);
      return;
    }
    if (!options.executing) return;
    const previous = this.executions.get(runId);
    clearTimeout(previous?.expiry);
    this.executions.set(runId, { mode: "asking", buffer: [], ended: false, expiry: undefined });
    this.hub.send({ t: "exec", run: runId });
  }

  wanted(runId: string): boolean {
    if (this.logged.has(runId) || this.local.wanted(runId)) return true;
    const execution = this.executions.get(runId);
    return execution !== undefined && !execution.ended && execution.mode !== "quiet";
  }

  publish(runId: string, event: string, data: unknown): void {
    if (this.logged.has(runId)) {
      this.hub.send({ t: "pub", run: runId, ev: event, data, logged: true });
      return;
    }
    const execution = this.executions.get(runId);
    let published = this.local.publish(runId, event, data);
    if (!published && execution && !execution.ended && execution.mode !== "quiet") {
      // The local stream is dropped when its last local subscriber leaves; another child may still listen.
      this.local.open(runId, { resumable: false });
      published = this.local.publish(runId, event, data);
    }
    if (!published || !execution || execution.ended) return;
    if (execution.mode === "asking") execution.buffer.push(published);
    else if (execution.mode === "forward") this.forward(runId, published);
  }

  private forward(runId: string, event: RunStreamEvent): void {
    this.hub.send({ t: "pub", run: runId, ev: event.event, data: event.data, logged: false, id: event.id });
  }

  end(runId: string): void {
    if (this.logged.has(runId)) {
      // Local subscribers of a logged run listen at the hub: its end comes after its last events.
      this.logged.delete(runId);
      this.hub.send({ t: "end", run: runId, logged: true });
      return;
    }
    this.local.end(runId);
    const execution = this.executions.get(runId);
    if (!execution || execution.ended) return;
    execution.ended = true;
    if (execution.mode === "forward") this.hub.send({ t: "end", run: runId, logged: false });
    execution.expiry = setTimeout(() => {
      if (this.executions.get(runId) === execution) this.executions.delete(runId);
    }, ENDED_MEMORY_MS);
    execution.expiry.unref();
  }

  subscribe(
    runId: string,
    options: Parameters<StreamBroker["subscribe"]>[1],
    listener: (message: StreamMessage) => void,
  ): () => void {
    let done = false;
    const deliver = (message: StreamMessage) => {
      if (done) return;
      if (message.kind === "end") done = true;
      listener(message);
    };
    const sub = this.nextSub++;
    this.subscribers.set(sub, {
      run: runId,
      pending: true,
      listener: deliver,
      onReplayed: options.onReplayed,
    });
    let subs = this.subscribersByRun.get(runId);
    if (!subs) {
      subs = new Set();
      this.subscribersByRun.set(runId, subs);
    }
    subs.add(sub);
    this.hub.send({ t: "sub", sub, run: runId, last: options.lastEventId });
    // Events published in this process: a non-resumable run executed (or accepted) here.
    const unsubscribeLocal = this.local.subscribe(runId, {}, (message) => {
      // A logged run's end comes from the hub, after its last events.
      if (message.kind === "end" && this.logged.has(runId)) return;
      deliver(message);
    });
    return () => {
      done = true;
      unsubscribeLocal();
      if (this.dropSubscriber(sub)) this.hub.send({ t: "unsub", sub });
    };
  }

  private dropSubscriber(sub: number): boolean {
    const subscriber = this.subscribers.get(sub);
    if (!subscriber) return false;
    this.subscribers.delete(sub);
    const subs = this.subscribersByRun.get(subscriber.run);
    subs?.delete(sub);
    if (subs?.size === 0) this.subscribersByRun.delete(subscriber.run);
    return true;
  }

  private receive(message: HubMessage): void {
    switch (message.t) {
      case "answer":
      case "interest": {
        const execution = this.executions.get(message.run);
        if (!execution || execution.mode === "forward") return;
        if (message.t === "answer" && !message.wanted) {
          if (execution.mode === "asking") execution.mode = "quiet";
          execution.buffer = [];
          return;
        }
        // Events published before the subscriber's interest arrived are sent first, in order.
        for (const event of execution.buffer) this.forward(message.run, event);
        execution.buffer = [];
        execution.mode = "forward";
        if (execution.ended) this.hub.send({ t: "end", run: message.run, logged: false });
        return;
      }
      case "ended":
        // The run's stream is over wherever it ran (its end reached the hub before this signal).
        this.logged.delete(message.run);
        return;
      case "ev": {
        const event: RunStreamEvent = { id: message.id, event: message.ev, data: message.data };
        for (const subscriber of this.targets(message.run, message.sub)) {
          subscriber.listener({ kind: "event", event });
        }
        return;
      }
      case "end":
        for (const subscriber of this.targets(message.run, message.sub)) subscriber.listener({ kind: "end" });
        return;
      case "replayed": {
        const subscriber = this.subscribers.get(message.sub);
        if (!subscriber) return;
        subscriber.pending = false;
        subscriber.onReplayed?.({ logged: message.logged });
        return;
      }
      default:
        return;
    }
  }

  /** The subscriber a replay message is for, or every live (not pending) subscriber of the run. */
  private targets(run: string, sub: number | undefined): HubSubscriber[] {
    if (sub !== undefined) {
      const subscriber = this.subscribers.get(sub);
      return subscriber ? [subscriber] : [];
    }
    const result: HubSubscriber[] = [];
    for (const id of this.subscribersByRun.get(run) ?? []) {
      const subscriber = this.subscribers.get(id);
      if (subscriber && !subscriber.pending) result.push(subscriber);
    }
    return result;
  }

  close(): void {
    this.unsubscribe();
    for (const execution of this.executions.values()) clearTimeout(execution.expiry);
    this.executions.clear();
    this.local.close();
  }
}
