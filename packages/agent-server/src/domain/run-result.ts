import type { RunStatus } from "@berth-platform/schemas";

/**
 * What `/runs/wait` and `/join` answer for an ended run, as the official server answers it:
 * `{__error__: {error, message}}` for a run that failed, `{__interrupt__: [...]}` for one that
 * stopped at an interrupt, otherwise the thread's values (the run's last `values` chunk).
 */

/** The answer for a failed run. */
export function errorResult(error: { error: string; message: string }): string {
  return JSON.stringify({ __error__: error });
}

/**
 * The answer from a run's end signal, or undefined when the database must give it: the signal
 * came from another process, which leaves out the values its thread holds (RunOutcome.threadHoldsValues).
 */
export function resultFromOutcome(outcome: {
  status: RunStatus | "deleted";
  error?: { error: string; message: string } | null;
  resultJson?: string;
  valuesJson?: string;
}): string | undefined {
  if (outcome.error) return errorResult(outcome.error);
  if (outcome.resultJson !== undefined) return outcome.resultJson;
  return outcome.status === "success" || outcome.status === "interrupted" ? outcome.valuesJson : undefined;
}

/** What the stored rows say of an ended run (RunStore.joinState reads them in one statement). */
export interface EndedRunRows {
  status: RunStatus;
  /** The run's error as stored (JSON), when it failed. */
  error: string | null;
  /** The thread's interrupts by task (JSON), read only while the thread is interrupted. */
  interrupts: string | null;
  /** The thread's values (JSON text). */
  valuesJson: string;
}

/**
 * The answer from the stored rows, for a run that ended before anyone waited (the official
 * server's fallback reads the thread the same way): a failed run's error, the interrupts of an
 * interrupted thread, all of them in one list, or the thread's values.
 */
export function resultFromRows(rows: EndedRunRows): string {
  if ((rows.status === "error" || rows.status === "timeout") && rows.error !== null)
    return errorResult(JSON.parse(rows.error) as { error: string; message: string });
  if (rows.interrupts !== null) {
    const byTask = JSON.parse(rows.interrupts) as Record<string, unknown>;
    const all = Object.values(byTask).flatMap((list) => (Array.isArray(list) ? list : []));
    if (all.length > 0) return JSON.stringify({ __interrupt__: all });
  }
  return rows.valuesJson;
}
