import type { RunStatus } from "@berth-platform/schemas";

/** How a run ended, as its waiters learn it. `values` are the thread's values after the run. */
export interface RunOutcome {
  status: RunStatus | "deleted";
  /** The thread's values as the API's JSON (a string crosses processes as it is). */
  valuesJson?: string;
  error?: { error: string; message: string } | null;
  /**
   * What `/runs/wait` and `/join` answer when it is not the thread's values: the run's last
   * `values` chunk, `{__interrupt__: [...]}` for a run that stopped at an interrupt (or a
   * narrower output schema's values). Not stored anywhere: signals to other processes keep it.
   */
  resultJson?: string;
  /**
   * The values are the thread's stored values too (the run's thread is kept): signals to other
   * processes leave them out, and a waiter there reads the thread (a whole conversation per run
   * was serialised, published and parsed by every process, listening or not).
   */
  threadHoldsValues?: boolean;
}

/**
 * Signals between API handlers and queue workers. In-process for the embedded server; a Redis or
 * NOTIFY adapter carries them between processes. Losing a signal only delays work: the database
 * stays the source of truth and the queue polls as a safety net.
 */
export interface RunSignals {
  /** A run was created or became runnable: wake the dispatchers. */
  ringDoorbell(): void;
  onDoorbell(listener: () => void): () => void;
  /** Ask the worker running `runId` to stop (the action is in the run row). */
  cancel(runId: string): void;
  onCancel(runId: string, listener: () => void): () => void;
  /** A run reached a terminal status (or was deleted by a rollback). */
  runEnded(runId: string, outcome: RunOutcome): void;
  onRunEnded(runId: string, listener: (outcome: RunOutcome) => void): () => void;
}

/** What other processes hear of a run's end: the values only when the thread does not hold them. */
export function withoutStoredValues(outcome: RunOutcome): RunOutcome {
  if (!outcome.threadHoldsValues) return outcome;
  const { valuesJson: _, ...rest } = outcome;
  return rest;
}
