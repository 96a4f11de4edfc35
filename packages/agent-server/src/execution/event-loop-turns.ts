/**
 * Turns of the event loop shared by every run of a process. Storage answers synchronously, so a
 * run's steps chain as promise callbacks; each run waits for a turn between steps so HTTP and
 * timers get served. One `setImmediate` serves every run that asks before it fires: the parked
 * runs resume together in that immediate, in the order they asked, after the loop has polled
 * I/O, which is what a `setImmediate` per run gave too. The difference is cost: an immediate per
 * run and step measured 0.6 ms of CPU per echo run at 16 concurrent runs (2.5 → 3.1 ms in
 * process), the shared one nothing measurable (docs/decisions.md, issue 12 fourth pass).
 */
export class EventLoopTurns {
  private pending: Promise<void> | undefined;

  /** Resolves in the next check phase, after pending I/O callbacks. */
  next(): Promise<void> {
    this.pending ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        // Cleared before resolving: a run asking again from inside this turn gets the next one.
        this.pending = undefined;
        resolve();
      }),
    );
    return this.pending;
  }
}
