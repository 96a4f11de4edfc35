import { type ChildMessage, type HubMessage, isClusterMessage } from "./protocol.js";

/** What crosses the IPC channel: one message, or the messages one side sent in one event-loop turn. */
export type Wire<M> = M | { t: "batch"; m: M[] };

/**
 * Coalesces the messages sent during one event-loop turn into one IPC write, flushed on the next
 * check phase. Each write costs a system call and wakes the receiving process: on this kind of host
 * about 30 µs of the sender's time when the receiver sleeps (measured, decisions.md), more when both
 * cores are busy. Under load a child sends `exec`, `ended` and `door` for several runs per turn.
 * Order is kept; repeated doorbells in one batch are one (a doorbell carries nothing).
 */
export class BatchedSender<M extends { t: string }> {
  private queue: M[] = [];
  private scheduled = false;

  constructor(private readonly write: (wire: Wire<M>) => void) {}

  send(message: M): void {
    if (message.t === "door" && this.queue.some((queued) => queued.t === "door")) return;
    this.queue.push(message);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.flush);
  }

  /** Writes what is queued now (also called by the scheduled flush). */
  readonly flush = (): void => {
    this.scheduled = false;
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    this.write(batch.length === 1 ? (batch[0] as M) : { t: "batch", m: batch });
  };
}

/** The cluster messages in what arrived on the channel, in order (none when it is not ours). */
export function unbatch<M extends ChildMessage | HubMessage>(value: unknown): M[] {
  if (!isClusterMessage(value)) return [];
  if (value.t !== "batch") return [value as M];
  const inner = (value as { m?: unknown }).m;
  return Array.isArray(inner) ? (inner.filter(isClusterMessage) as M[]) : [];
}
