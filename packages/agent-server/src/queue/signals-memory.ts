import type { RunOutcome, RunSignals } from "./types.js";

type Listener<T> = (value: T) => void;

/** Per-key listener sets that delete their key when the last listener leaves (no growth per run). */
class KeyedListeners<T> {
  private readonly map = new Map<string, Set<Listener<T>>>();

  add(key: string, listener: Listener<T>): () => void {
    let set = this.map.get(key);
    if (!set) {
      set = new Set();
      this.map.set(key, set);
    }
    set.add(listener);
    return () => {
      const current = this.map.get(key);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) this.map.delete(key);
    };
  }

  emit(key: string, value: T): void {
    const set = this.map.get(key);
    if (!set) return;
    for (const listener of [...set]) listener(value);
  }

  get size(): number {
    return this.map.size;
  }
}

/** Signals within one process. */
export class MemoryRunSignals implements RunSignals {
  private readonly doorbell = new Set<() => void>();
  private readonly cancels = new KeyedListeners<void>();
  private readonly ends = new KeyedListeners<RunOutcome>();

  ringDoorbell(): void {
    for (const listener of this.doorbell) listener();
  }

  onDoorbell(listener: () => void): () => void {
    this.doorbell.add(listener);
    return () => this.doorbell.delete(listener);
  }

  cancel(runId: string): void {
    this.cancels.emit(runId, undefined);
  }

  onCancel(runId: string, listener: () => void): () => void {
    return this.cancels.add(runId, listener);
  }

  runEnded(runId: string, outcome: RunOutcome): void {
    this.ends.emit(runId, outcome);
  }

  onRunEnded(runId: string, listener: (outcome: RunOutcome) => void): () => void {
    return this.ends.add(runId, listener);
  }

  /** Keys still holding listeners (leak checks in tests). */
  get pendingListeners(): number {
    return this.cancels.size + this.ends.size;
  }
}
