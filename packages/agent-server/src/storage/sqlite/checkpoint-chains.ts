import type { Database, Statement } from "better-sqlite3";
import type { ReusedSpan } from "../checkpoint-serde.js";
import { CorruptDelta, DELTA_TYPE, decodeDelta, encodeDelta, spansInto } from "./checkpoint-deltas.js";

/**
 * Checkpoint rows stored as a change to their parent (issue 31). Why: a chat thread's checkpoint
 * holds its whole message list and LangGraph saves one per step (the ReAct agent: 5 a run), so at
 * turn 50 a run wrote ~350 KB to SQLite, most of it the bytes of its parent again; writing them
 * (WAL frames, then the WAL checkpoint) was the largest cost that grew with the thread.
 *
 * When the serializer copied part of a checkpoint's bytes from the previous write of the same
 * thread and namespace, and that write is the parent checkpoint stored by this saver, the row holds
 * only the rest and where the copied spans come from (checkpoint-deltas.ts). A full row is written
 * every MAX_CHAIN rows, when little would be saved, and whenever the parent is not the one this
 * process wrote last (another process, a restart, time travel): a read never walks more than
 * MAX_CHAIN rows. Reads go through `row`, which turns every delta row into the full bytes, so the
 * official SqliteSaver's reads (getTuple, list) see rows as it writes them.
 *
 * A parent is never deleted under its change: rows of a thread go together (deleteThread), and a
 * rollback first rewrites as full rows the surviving changes to the rows it deletes
 * (beforeDelete). A delta row is inserted only if its parent still exists (same statement).
 */
export class CheckpointChains {
  /** The last row written per thread and namespace, with its full bytes (a thread's next read). */
  private readonly lastPut = new BoundedBytes<{ id: string; depth: number }>(256, 16_000_000);
  /** Full bytes of delta rows read lately: a history listing reads each row's parent next. */
  private readonly materialized = new BoundedBytes<undefined>(32, 16_000_000);
  private prepared:
    | { insertFull: Statement; insertDelta: Statement; selectRow: Statement; rewriteWhole: Statement }
    | undefined;

  /** `db`: the checkpoint file, its tables created before the first put or read. */
  constructor(private readonly db: Database) {}

  private statements() {
    const columns =
      "thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata";
    this.prepared ??= {
      insertFull: this.db.prepare(
        `INSERT OR REPLACE INTO checkpoints (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertDelta: this.db.prepare(
        `INSERT OR REPLACE INTO checkpoints (${columns}) SELECT ?, ?, ?, ?, ?, ?, ?
         WHERE EXISTS (SELECT 1 FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?)`,
      ),
      selectRow: this.db.prepare(
        "SELECT type, checkpoint, parent_checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
      ),
      rewriteWhole: this.db.prepare(
        "UPDATE checkpoints SET type = 'json', checkpoint = ? WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
      ),
    };
    return this.prepared;
  }

  /** Stores a checkpoint's row: as a change to its parent when that saves enough, else whole. */
  put(row: {
    threadId: string;
    ns: string;
    id: string;
    parentId: string | undefined;
    type: string;
    bytes: Uint8Array;
    reused: readonly ReusedSpan[];
    metadata: Uint8Array;
  }): void {
    const key = `${row.threadId}\u0000${row.ns}`;
    const last = this.lastPut.get(key);
    this.lastPut.delete(key);
    this.materialized.delete(`${key}\u0000${row.id}`);
    const { threadId, ns, id, parentId, type, bytes, metadata } = row;
    if (last && parentId !== undefined && last.value.id === parentId && last.value.depth < MAX_CHAIN) {
      const spans = spansInto(last.bytes, row.reused);
      const copied = spans?.reduce((n, s) => n + s.length, 0) ?? 0;
      if (spans && copied >= MIN_COPIED) {
        const delta = encodeDelta(bytes, spans);
        const args = [threadId, ns, id, parentId, DELTA_TYPE, delta, metadata, threadId, ns, parentId];
        if (this.statements().insertDelta.run(...args).changes > 0) {
          this.lastPut.set(key, bytes, { id, depth: last.value.depth + 1 });
          return;
        }
      }
    }
    this.statements().insertFull.run(threadId, ns, id, parentId, type, bytes, metadata);
    this.lastPut.set(key, bytes, { id, depth: 0 });
  }

  /** A row as the official saver reads it: a delta row becomes its full bytes, typed `json`. */
  readonly row = <T>(row: T): T => {
    const r = row as Record<string, unknown> | undefined;
    if (r?.type !== DELTA_TYPE || !(r.checkpoint instanceof Uint8Array)) return row;
    const { thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id } = r;
    if (
      typeof thread_id !== "string" ||
      typeof checkpoint_ns !== "string" ||
      typeof checkpoint_id !== "string"
    )
      throw new CorruptDelta("the row was read without its keys");
    r.checkpoint = this.decoded(thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, r.checkpoint);
    r.type = "json";
    return row;
  };

  /** A delta row's full bytes: kept, or decoded from its parent's. */
  private decoded(
    threadId: string,
    ns: string,
    id: string,
    parentId: unknown,
    delta: Uint8Array,
  ): Uint8Array {
    const kept = this.kept(threadId, ns, id);
    if (kept) return kept;
    if (typeof parentId !== "string") throw new CorruptDelta(`checkpoint ${id} has no parent`);
    const bytes = decodeDelta(delta, this.full(threadId, ns, parentId));
    this.materialized.set(`${threadId}\u0000${ns}\u0000${id}`, bytes, undefined);
    return bytes;
  }

  /** The full bytes of a checkpoint row, following its chain of changes. */
  full(threadId: string, ns: string, id: string): Uint8Array {
    const kept = this.kept(threadId, ns, id);
    if (kept) return kept;
    const stored = this.statements().selectRow.get(threadId, ns, id) as
      | { type: string | null; checkpoint: Uint8Array; parent_checkpoint_id: string | null }
      | undefined;
    if (!stored) throw new CorruptDelta(`checkpoint ${id} of thread ${threadId} is missing`);
    if (stored.type !== DELTA_TYPE) return stored.checkpoint;
    return this.decoded(threadId, ns, id, stored.parent_checkpoint_id, stored.checkpoint);
  }

  /** A row's full bytes if this process holds them: its last write, or a change decoded lately. */
  private kept(threadId: string, ns: string, id: string): Uint8Array | undefined {
    const key = `${threadId}\u0000${ns}`;
    const last = this.lastPut.get(key);
    if (last?.value.id === id) return last.bytes;
    return this.materialized.get(`${key}\u0000${id}`)?.bytes;
  }

  /**
   * Before rows of a thread are deleted: `dependents`, the rows that stay and are stored as a change
   * to one of them, are rewritten whole. Run inside the deleting transaction.
   */
  beforeDelete(threadId: string, dependents: Array<{ checkpoint_ns: string; checkpoint_id: string }>): void {
    for (const { checkpoint_ns, checkpoint_id } of dependents) {
      const bytes = this.full(threadId, checkpoint_ns, checkpoint_id);
      this.statements().rewriteWhole.run(bytes, threadId, checkpoint_ns, checkpoint_id);
    }
  }

  /** Forgets everything kept (rows written lately were rolled back). */
  forgetAll(): void {
    this.lastPut.deleteWhere(() => true);
    this.materialized.deleteWhere(() => true);
  }

  /** Forgets what is kept of a thread (its rows were deleted or rewritten). */
  forgetThread(threadId: string): void {
    const prefix = `${threadId}\u0000`;
    this.lastPut.deleteWhere((key) => key.startsWith(prefix));
    this.materialized.deleteWhere((key) => key.startsWith(prefix));
  }
}

/** Rows between two full rows at most: a cold read of a checkpoint decodes this many changes. */
const MAX_CHAIN = 16;
/** Bytes a change must copy from its parent to be stored as one (a 4 KB page). */
const MIN_COPIED = 4096;

/** Byte arrays by key, least recently set first, bounded in count and bytes. */
class BoundedBytes<V> {
  private readonly entries = new Map<string, { bytes: Uint8Array; value: V }>();
  private total = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
  ) {}

  get(key: string): { bytes: Uint8Array; value: V } | undefined {
    return this.entries.get(key);
  }

  set(key: string, bytes: Uint8Array, value: V): void {
    this.delete(key);
    if (bytes.length > this.maxBytes / 4) return;
    this.entries.set(key, { bytes, value });
    this.total += bytes.length;
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.total <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.total -= entry.bytes.length;
  }

  deleteWhere(test: (key: string) => boolean): void {
    for (const key of [...this.entries.keys()]) if (test(key)) this.delete(key);
  }
}
