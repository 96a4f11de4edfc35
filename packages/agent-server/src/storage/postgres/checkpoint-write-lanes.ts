/**
 * One data-modifying statement (an INSERT … ON CONFLICT) of a checkpoint write, built once its
 * place among the parameters is known: `build` pushes its values and numbers them as it goes.
 */
export interface WritePart {
  build(values: unknown[]): string[];
  /** Rows it may write; two parts that share one are never sent in one statement. */
  keys: readonly string[];
}

interface Queued {
  part: WritePart;
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface Lane {
  /** A statement is being sent, or its send is scheduled for the next turn. */
  busy: boolean;
  queue: Queued[];
  /** Called when the lane has nothing queued or being sent (see drain). */
  drained: Array<() => void>;
}

/**
 * A thread namespace's checkpoint writes, one statement at a time, with those that queued up
 * meanwhile sent together. LangGraph puts a checkpoint only once the previous put is done, and a
 * task's writes come while that put is in flight: sent in the next checkpoint's statement (as
 * CTEs of one INSERT) they cost no round trip of their own. An echo run's five writes become
 * three statements. Nothing waits longer than the statement ahead of it and one turn of the event
 * loop (so that the put LangGraph chains on the previous one can join it).
 */
export class CheckpointWriteLanes {
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly send: (text: string, values: unknown[]) => Promise<unknown>) {}

  /** Whether nothing of `lane` is queued or being sent. */
  idle(lane: string): boolean {
    return !this.lanes.has(lane);
  }

  /** Resolves once the part is committed (with the parts sent along with it). */
  submit(lane: string, part: WritePart): Promise<void> {
    let entry = this.lanes.get(lane);
    if (!entry) {
      entry = { busy: false, queue: [], drained: [] };
      this.lanes.set(lane, entry);
    }
    const queued = entry;
    return new Promise((resolve, reject) => {
      queued.queue.push({ part, resolve, reject });
      if (!queued.busy) this.flushSoon(lane, queued);
    });
  }

  /** Resolves once nothing of `lane` is queued or being sent. */
  drain(lane: string): Promise<void> {
    const entry = this.lanes.get(lane);
    if (!entry) return Promise.resolve();
    return new Promise((resolve) => entry.drained.push(resolve));
  }

  /** `drain` of every lane whose name starts with `prefix`. */
  async drainAll(prefix: string): Promise<void> {
    const names = [...this.lanes.keys()].filter((name) => name.startsWith(prefix));
    await Promise.all(names.map((name) => this.drain(name)));
  }

  private flushSoon(name: string, lane: Lane): void {
    lane.busy = true;
    setImmediate(() => void this.flush(name, lane));
  }

  private async flush(name: string, lane: Lane): Promise<void> {
    const batch = takeBatch(lane.queue);
    const values: unknown[] = [];
    const statements = batch.flatMap((q) => q.part.build(values));
    const last = statements.pop() ?? "";
    const text = statements.length
      ? `with ${statements.map((s, i) => `w${i} as (${s})`).join(", ")} ${last}`
      : last;
    try {
      await this.send(text, values);
      for (const q of batch) q.resolve();
    } catch (error) {
      for (const q of batch) q.reject(error);
    }
    if (lane.queue.length) this.flushSoon(name, lane);
    else {
      lane.busy = false;
      this.lanes.delete(name);
      for (const drained of lane.drained.splice(0)) drained();
    }
  }
}

/** The longest head of the queue whose parts write distinct rows; it is taken off the queue. */
function takeBatch(queue: Queued[]): Queued[] {
  const seen = new Set<string>();
  let n = 0;
  for (const q of queue) {
    if (n > 0 && q.part.keys.some((key) => seen.has(key))) break;
    for (const key of q.part.keys) seen.add(key);
    n += 1;
  }
  return queue.splice(0, n);
}
