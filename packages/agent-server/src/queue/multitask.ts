import type { MultitaskStrategy } from "@berth-platform/schemas";

/** A run that is pending or running on the thread a new run targets. */
export interface ActiveRun {
  run_id: string;
  status: "pending" | "running";
}

/** What happens to an active run when a new one is accepted. */
export interface Displacement {
  run_id: string;
  status: "pending" | "running";
  action: "interrupt" | "rollback";
}

/** The outcome of a double-text: refuse the new run, or accept it and displace some active runs. */
export type MultitaskDecision = { kind: "reject" } | { kind: "accept"; displace: Displacement[] };

/**
 * The double-texting policy (reference §2.3): `reject` refuses while the thread is busy, `enqueue`
 * waits its turn, `interrupt`/`rollback` displace every active run. An idle thread accepts anything.
 */
export function decideMultitask(
  strategy: MultitaskStrategy,
  active: readonly ActiveRun[],
): MultitaskDecision {
  if (active.length === 0) return { kind: "accept", displace: [] };
  switch (strategy) {
    case "reject":
      return { kind: "reject" };
    case "enqueue":
      return { kind: "accept", displace: [] };
    case "interrupt":
    case "rollback":
      return {
        kind: "accept",
        displace: active.map((run) => ({ run_id: run.run_id, status: run.status, action: strategy })),
      };
  }
}

/** The message of the 409 a rejected double-text gets. */
export const BUSY_THREAD_MESSAGE =
  "Thread is already running a task. Wait for it to finish or choose a different multitask strategy.";
