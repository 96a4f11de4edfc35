import type { RunOutcome } from "../queue/types.js";

/**
 * Messages between a child of the embedded cluster and the hub in its primary (over the cluster's
 * IPC channel). Signals are echoed to the other children; run events cross only when a subscriber
 * elsewhere needs them or the run is resumable (the hub then keeps its replay log and gives ids).
 */
export type ChildMessage =
  | { t: "ready"; graphIds: string[]; graphFailures: Record<string, string> }
  /** The child could not start (its reason, said once by the primary rather than by every child). */
  | { t: "failed"; message: string }
  | { t: "door" }
  | { t: "cancel"; run: string }
  | { t: "ended"; run: string; outcome: RunOutcome }
  /** This child starts executing `run`: the hub answers whether another child listens to it. */
  | { t: "exec"; run: string }
  /** An event: `logged` (resumable) ones get their id from the hub; others keep the publisher's. */
  | { t: "pub"; run: string; ev: string; data: unknown; logged: true }
  | { t: "pub"; run: string; ev: string; data: unknown; logged: false; id: string }
  | { t: "end"; run: string; logged: boolean }
  | { t: "sub"; sub: number; run: string; last?: string | undefined }
  | { t: "unsub"; sub: number };

/** Messages from the hub to one child. */
export type HubMessage =
  | { t: "door" }
  | { t: "cancel"; run: string }
  | { t: "ended"; run: string; outcome: RunOutcome }
  | { t: "answer"; run: string; wanted: boolean }
  /** A child subscribed to a run this child executes: forward its events from now on. */
  | { t: "interest"; run: string }
  /** An event for the run's subscribers here; with `sub`, part of that subscriber's replay only. */
  | { t: "ev"; run: string; id: string; ev: string; data: unknown; sub?: number }
  | { t: "end"; run: string; sub?: number }
  | { t: "replayed"; sub: number; logged: boolean }
  /** Drain (SIGTERM semantics) and exit. */
  | { t: "drain" };

/** Whether a value received over IPC is a cluster message (other IPC users may share the channel). */
export function isClusterMessage(value: unknown): value is { t: string } {
  return typeof value === "object" && value !== null && typeof (value as { t?: unknown }).t === "string";
}
