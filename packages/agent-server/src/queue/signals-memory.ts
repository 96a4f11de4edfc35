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

  /** Calls the key's listeners; false when it has none. */
  emit(key: string, value: T): boolean {
    const set = this.map.get(key);
    if (!set) return false;
    for (const listener of [...set]) listener(value);
    return true;
  }

  get size(): number {
    return this.map.size;
  }
}

/** How long a cancel nobody listened to is kept for a worker about to subscribe. */
const UNHEARD_CANCEL_MS = 10_000;
/** At most this many such cancels are kept (other processes' runs' cancels arrive here too). */
const UNHEARD_CANCELS_MAX = 1_000;

/** Signals within one process. */
export class MemoryRunSignals implements RunSignals {
  private readonly doorbell = new Set<() => void>();
  private readonly cancels = new KeyedListeners<void>();
  private readonly ends = new KeyedListeners<RunOutcome>();
  /**
   * Cancels that came while no worker listened for their run, by run id (expiry, epoch ms). A run
   * displaced right after its claim committed may be signalled before its worker subscribes; the
   * worker hears it when it does, so it need not read the run row to catch that (one statement
   * per run). A cancel for a run executing elsewhere is kept for nothing until it expires.
   */
  private readonly unheardCancels = new Map<string, number>();

  ringDoorbell(): void {
    for (const listener of this.doorbell) listener();
  }

  onDoorbell(listener: () => void): () => void {
    this.doorbell.add(listener);
    return () => this.doorbell.delete(listener);
  }

  cancel(runId: string): void {
    if (this.cancels.emit(runId, undefined)) return;
    const now = Date.now();
    for (const [id, expiry] of this.unheardCancels) {
      if (expiry > now && this.unheardCancels.size < UNHEARD_CANCELS_MAX) break;
      this.unheardCancels.delete(id);
    }
    this.unheardCancels.delete(runId);
    this.unheardCancels.set(runId, now + UNHEARD_CANCEL_MS);
  }

  /** Subscribes; a cancel of this run that nobody heard in the last seconds is delivered at once. */
  onCancel(runId: string, listener: () => void): () => void {
    const unsubscribe = this.cancels.add(runId, listener);
    const unheard = this.unheardCancels.get(runId);
    if (unheard !== undefined) {
      this.unheardCancels.delete(runId);
      if (unheard > Date.now()) listener();
    }
    return unsubscribe;
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
