/** A channel's value as stored: its version, serde type and bytes ("empty": no value). */
export interface HeldBlob {
  version: string;
  type: string;
  bytes: Uint8Array | null;
}

/** A pending write as stored, one per (task, idx). */
export interface HeldWrite {
  taskId: string;
  idx: number;
  channel: string;
  type: string;
  bytes: Uint8Array;
}

/**
 * The latest checkpoint this process wrote to a thread namespace, as the checkpointer's read would
 * return it (rows, not objects: each read revives its own). Only a read that PostgreSQL confirms
 * is still the latest (same checkpoint id, same number of pending writes) is answered from it.
 */
export interface HeldTuple {
  checkpointId: string;
  parentId: string | undefined;
  /** The stored checkpoint (without channel values) and metadata, as the JSON sent. */
  checkpointJson: string;
  metadataJson: string;
  /** Every channel of the checkpoint's `channel_versions`, at that version. */
  blobs: Map<string, HeldBlob>;
  /** Pending writes by `${taskId}\0${idx}`. */
  writes: Map<string, HeldWrite>;
}

/** Threads held at most (LRU), and their bytes: a held tuple mirrors rows, not shared objects. */
const HELD_KEYS = 256;
const HELD_BYTES = 16_000_000;

const sizeOf = (tuple: HeldTuple) => {
  let bytes = tuple.checkpointJson.length + tuple.metadataJson.length;
  for (const blob of tuple.blobs.values()) bytes += blob.bytes?.length ?? 0;
  for (const write of tuple.writes.values()) bytes += write.bytes.length;
  return bytes;
};

/**
 * Held tuples by thread namespace, bounded. Updated only after the statement that wrote the rows
 * committed; anything uncertain (a failed write, a delete) forgets the thread.
 */
export class HeldTuples {
  private readonly byKey = new Map<string, { tuple: HeldTuple; bytes: number }>();
  private bytes = 0;

  get(key: string): HeldTuple | undefined {
    return this.byKey.get(key)?.tuple;
  }

  /**
   * After a checkpoint's put committed: the channels it wrote over those of its parent, when the
   * parent is the tuple held (else only when it wrote every channel itself).
   */
  put(
    key: string,
    next: Omit<HeldTuple, "blobs" | "writes">,
    versions: Record<string, unknown>,
    written: Map<string, HeldBlob>,
  ): void {
    const parent = this.get(key);
    const blobs = new Map<string, HeldBlob>();
    for (const [channel, version] of Object.entries(versions)) {
      const blob =
        written.get(channel) ??
        (parent?.checkpointId === next.parentId ? parent?.blobs.get(channel) : undefined);
      if (blob === undefined || blob.version !== String(version)) {
        this.forget(key);
        return;
      }
      blobs.set(channel, blob);
    }
    this.set(key, { ...next, blobs, writes: new Map() });
  }

  /** After a task's writes committed, by the official rules: upsert or first-write-wins. */
  putWrites(key: string, checkpointId: string, writes: HeldWrite[], upsert: boolean): void {
    const held = this.get(key);
    if (held?.checkpointId !== checkpointId) return;
    for (const write of writes) {
      const id = `${write.taskId}\u0000${write.idx}`;
      if (upsert || !held.writes.has(id)) held.writes.set(id, write);
    }
    this.set(key, held);
  }

  forget(key: string): void {
    const entry = this.byKey.get(key);
    if (!entry) return;
    this.byKey.delete(key);
    this.bytes -= entry.bytes;
  }

  /** Every namespace of a thread (a deleted or rolled back thread). */
  forgetThread(threadId: string): void {
    for (const key of [...this.byKey.keys()]) if (key.startsWith(`${threadId}\u0000`)) this.forget(key);
  }

  private set(key: string, tuple: HeldTuple): void {
    this.forget(key);
    const bytes = sizeOf(tuple);
    if (bytes > HELD_BYTES / 16) return;
    this.byKey.set(key, { tuple, bytes });
    this.bytes += bytes;
    for (const oldest of this.byKey.keys()) {
      if (this.byKey.size <= HELD_KEYS && this.bytes <= HELD_BYTES) break;
      this.forget(oldest);
    }
  }
}
