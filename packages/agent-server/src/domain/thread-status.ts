import type { ThreadStatus } from "@berth-platform/schemas";

/** What is known about a thread once one of its runs has ended. */
export interface ThreadStatusInput {
  /** The run that just ended raised an error (not a user interrupt or rollback). */
  runErrored: boolean;
  /** The last checkpoint has tasks left to run (an `interrupt()` or `interrupt_before/after`). */
  hasNext: boolean;
  /** Other runs of the thread are pending or running. */
  otherActiveRuns: number;
}

/** Thread status after a run, in the reference's order (§2.2): error, interrupted, busy, idle. */
export function computeThreadStatus(input: ThreadStatusInput): ThreadStatus {
  if (input.runErrored) return "error";
  if (input.hasNext) return "interrupted";
  if (input.otherActiveRuns > 0) return "busy";
  return "idle";
}
