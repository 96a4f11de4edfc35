import { openSqliteFile } from "@berth-platform/server-kit";
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  type Checkpoint,
  type CheckpointMetadata,
  copyCheckpoint,
  type PendingWrite,
} from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { Database, Statement } from "better-sqlite3";
import { mergeRunMetadata, streamFlushed } from "../checkpoint-metadata.js";
import { CheckpointSerializer } from "../checkpoint-serde.js";
import type { CheckpointAdmin } from "../types.js";
import { SHARED_MMAP_BYTES } from "./database.js";

/**
 * The official SQLite checkpointer, storing run context in checkpoint metadata. `put` writes the
 * official row as SqliteSaver does, with the checkpoint serialised as its thread's latest value
 * (CheckpointSerializer.dumpsTypedFor: the thread's next run reads it back without parsing its
 * messages) and the INSERT prepared once.
 */
export class BerthSqliteSaver extends SqliteSaver {
  private insert: Statement | undefined;

  constructor(
    db: Database,
    private readonly serializer: CheckpointSerializer,
  ) {
    super(db, serializer);
  }

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata) {
    const stamped = mergeRunMetadata(config, await streamFlushed(config, metadata));
    this.setup();
    if (!config.configurable) throw new Error("Empty configuration supplied.");
    const threadId = config.configurable.thread_id as string | undefined;
    const ns = (config.configurable.checkpoint_ns as string | undefined) ?? "";
    const parentId = config.configurable.checkpoint_id as string | undefined;
    if (!threadId) throw new Error(`Missing "thread_id" field in passed "config.configurable".`);
    const [[type, serializedCheckpoint], [metadataType, serializedMetadata]] = await Promise.all([
      this.serializer.dumpsTypedFor(`${threadId}\u0000${ns}`, copyCheckpoint(checkpoint)),
      this.serializer.dumpsTyped(stamped),
    ]);
    if (type !== metadataType)
      throw new Error("Failed to serialized checkpoint and metadata to the same type.");
    this.insert ??= this.db.prepare(
      "INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    this.insert.run(threadId, ns, checkpoint.id, parentId, type, serializedCheckpoint, serializedMetadata);
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string) {
    await streamFlushed(config, {} as CheckpointMetadata);
    return super.putWrites(config, writes, taskId);
  }

  /** Creates the tables now rather than at the first call (housekeeping statements need them). */
  init(): void {
    this.setup();
  }
}

/**
 * Opens the checkpoint file (WAL) with the official SqliteSaver and its housekeeping; `shared`:
 * other processes write it too (memory-mapped reads, see SHARED_MMAP_BYTES); `backgroundCheckpoints`:
 * a worker thread checkpoints its WAL.
 */
export function openSqliteCheckpointer(
  file: string,
  options: { shared?: boolean; backgroundCheckpoints?: boolean } = {},
): {
  saver: BerthSqliteSaver;
  admin: CheckpointAdmin;
  close(): void;
} {
  const db = openSqliteFile(file, { backgroundCheckpoints: options.backgroundCheckpoints === true });
  if (options.shared) db.pragma(`mmap_size = ${SHARED_MMAP_BYTES}`);
  const saver = new BerthSqliteSaver(db, new CheckpointSerializer());
  saver.init();
  // The saver stores metadata as JSON text in a BLOB column; its own filters read it the same way.
  const runCheckpoints =
    "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND json_extract(CAST(metadata AS TEXT), '$.run_id') = ?";
  const deleteWrites = db.prepare(
    `DELETE FROM writes WHERE thread_id = ? AND checkpoint_id IN (${runCheckpoints})`,
  );
  const deleteCheckpoints = db.prepare(
    `DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id IN (${runCheckpoints})`,
  );
  // A copy's checkpoint metadata names the new thread, so history filters by thread keep working.
  const copyCheckpoints = db.prepare(
    `INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata)
     SELECT ?, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint,
            CAST(json_set(CAST(metadata AS TEXT), '$.thread_id', ?) AS BLOB)
     FROM checkpoints WHERE thread_id = ?`,
  );
  const copyWrites = db.prepare(
    `INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value)
     SELECT ?, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value FROM writes WHERE thread_id = ?`,
  );
  // The saver's own getTuple picks the latest checkpoint the same way (highest id in the namespace).
  const latestRunId = db.prepare(
    `SELECT json_extract(CAST(metadata AS TEXT), '$.run_id') AS run_id FROM checkpoints
     WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`,
  );
  const admin: CheckpointAdmin = {
    async latestRunId(threadId) {
      const row = latestRunId.get(threadId) as { run_id: unknown } | undefined;
      return typeof row?.run_id === "string" ? row.run_id : undefined;
    },
    async copyThread(fromThreadId, toThreadId) {
      db.transaction(() => {
        copyCheckpoints.run(toThreadId, toThreadId, fromThreadId);
        copyWrites.run(toThreadId, fromThreadId);
      })();
    },
    async deleteThread(threadId) {
      await saver.deleteThread(threadId);
    },
    async deleteRunCheckpoints(threadId, runId) {
      db.transaction(() => {
        deleteWrites.run(threadId, threadId, runId);
        deleteCheckpoints.run(threadId, threadId, runId);
      })();
    },
  };
  return { saver, admin, close: () => db.close() };
}
