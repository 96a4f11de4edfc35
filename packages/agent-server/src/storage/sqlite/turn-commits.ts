import type { Database } from "better-sqlite3";

/**
 * One commit per turn of the event loop for the checkpoint file's writes (issue 31). LangGraph
 * saves a task's writes, then, a few microtasks later, the checkpoint they lead to; runs that
 * share the process do the same in between. Each was its own transaction: a ReAct run committed 9
 * times (each commit a WAL lock round, a WAL header frame per page, pages written again that the
 * previous commit had just written). Here the first write of a turn opens a transaction and the
 * turn's end (`setImmediate`) commits it: a step's writes and checkpoint, and the steps of runs
 * running together, share one commit.
 *
 * A write's promise settles when its commit did: LangGraph awaits every put before a run ends, so
 * nothing is reported done before it is stored, and a crash loses only writes nobody was told of
 * (the run resumes from the checkpoint before). If the commit fails, every write of the turn is
 * rejected and `onRollback` forgets what the process kept of them. Only for a file this process
 * alone writes: the transaction holds SQLite's write lock until the turn ends.
 */
export class TurnCommits {
  private waiting: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];

  constructor(
    private readonly db: Database,
    private readonly onRollback: () => void,
  ) {}

  /** Runs `write` in the turn's transaction; resolves with its result once that commits. */
  write<T>(write: () => T): Promise<T> {
    if (!this.db.inTransaction) {
      this.db.exec("BEGIN");
      setImmediate(() => this.commit());
    }
    let result: T;
    try {
      result = write();
    } catch (error) {
      // Some errors (SQLITE_FULL, I/O) end the whole transaction: the turn's other writes with it.
      if (!this.db.inTransaction) this.fail(error);
      throw error;
    }
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ resolve: () => resolve(result), reject });
    });
  }

  /** Commits what this turn wrote so far: before a statement that must stand on its own. */
  commit(): void {
    if (!this.db.inTransaction) return;
    const waiting = this.waiting;
    this.waiting = [];
    try {
      this.db.exec("COMMIT");
    } catch (error) {
      this.waiting = waiting;
      try {
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
      } catch {
        // The connection is unusable; the writes are lost either way and their callers told so.
      }
      this.fail(error);
      return;
    }
    for (const w of waiting) w.resolve();
  }

  private fail(error: unknown): void {
    const waiting = this.waiting;
    this.waiting = [];
    this.onRollback();
    for (const w of waiting) w.reject(error);
  }
}

/**
 * One short transaction per turn of the event loop for a checkpoint file other processes write
 * too (the embedded cluster's children, the blue/green hand-over), where a transaction held until
 * the turn ends (TurnCommits) would make them wait. Writes are queued and run together at the
 * turn's end (`setImmediate`) between BEGIN IMMEDIATE and COMMIT, so SQLite's write lock is held
 * only while they run: a run's task writes and checkpoint, and those of the runs beside it, are
 * one commit instead of one per row.
 *
 * A write's promise settles once its commit did, as with TurnCommits. Reads on this connection
 * do not see queued writes: the saver commits them first (`commit`, before every read). A write
 * that throws is rejected alone, unless it ended the transaction: then every write of the batch
 * is rejected and `onRollback` forgets what the process kept of them.
 */
export class QueuedCommits {
  private queue: Array<{
    write: () => unknown;
    resolve: (value: unknown) => void;
    reject: (error: unknown) => void;
  }> = [];

  constructor(
    private readonly db: Database,
    private readonly onRollback: () => void,
  ) {}

  /** Queues `write` for the turn's transaction; resolves with its result once that commits. */
  write<T>(write: () => T): Promise<T> {
    if (this.queue.length === 0) setImmediate(() => this.commit());
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /** Runs and commits what is queued: before a read, or a statement that must stand on its own. */
  commit(): void {
    if (this.queue.length === 0) return;
    const queue = this.queue;
    this.queue = [];
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      this.db.exec("BEGIN IMMEDIATE");
      for (const q of queue) {
        try {
          outcomes.push({ ok: true, value: q.write() });
        } catch (error) {
          // Some errors (SQLITE_FULL, I/O) end the whole transaction: the batch with it.
          if (!this.db.inTransaction) throw error;
          outcomes.push({ ok: false, error });
        }
      }
      this.db.exec("COMMIT");
    } catch (error) {
      try {
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
      } catch {
        // The connection is unusable; the writes are lost either way and their callers told so.
      }
      this.onRollback();
      for (const q of queue) q.reject(error);
      return;
    }
    queue.forEach((q, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) q.resolve(outcome.value);
      else q.reject(outcome?.error);
    });
  }
}
