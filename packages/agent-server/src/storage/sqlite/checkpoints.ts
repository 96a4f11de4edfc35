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
import { CheckpointChains } from "./checkpoint-chains.js";
import { DELTA_TYPE } from "./checkpoint-deltas.js";
import { SHARED_MMAP_BYTES } from "./database.js";

/**
 * The official SQLite checkpointer, storing run context in checkpoint metadata. `put` writes the
 * official row, with the checkpoint serialised as its thread's latest value (CheckpointSerializer:
 * the thread's next run reads it back without parsing its messages), or as a change to its parent
 * row (CheckpointChains); the official reads see every row whole (readingWhole).
 */
export class BerthSqliteSaver extends SqliteSaver {
  constructor(
    db: Database,
    private readonly serializer: CheckpointSerializer,
    private readonly chains: CheckpointChains,
  ) {
    super(readingWhole(db, chains.row), serializer);
  }

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata) {
    const stamped = mergeRunMetadata(config, await streamFlushed(config, metadata));
    this.setup();
    if (!config.configurable) throw new Error("Empty configuration supplied.");
    const threadId = config.configurable.thread_id as string | undefined;
    const ns = (config.configurable.checkpoint_ns as string | undefined) ?? "";
    const parentId = config.configurable.checkpoint_id as string | undefined;
    if (!threadId) throw new Error(`Missing "thread_id" field in passed "config.configurable".`);
    const [{ type, bytes, reused }, [metadataType, serializedMetadata]] = await Promise.all([
      this.serializer.dumpFor(`${threadId}\u0000${ns}`, copyCheckpoint(checkpoint)),
      this.serializer.dumpsTyped(stamped),
    ]);
    if (type !== metadataType)
      throw new Error("Failed to serialized checkpoint and metadata to the same type.");
    this.chains.put({
      threadId,
      ns,
      id: checkpoint.id,
      parentId,
      type,
      bytes,
      reused,
      metadata: serializedMetadata,
    });
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
  const chains = new CheckpointChains(db);
  const saver = new BerthSqliteSaver(db, new CheckpointSerializer(), chains);
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
  // Rows that stay, stored as a change to a row of the run (CheckpointChains.beforeDelete).
  const dependents = db.prepare(
    `SELECT checkpoint_ns, checkpoint_id FROM checkpoints WHERE thread_id = ? AND type = '${DELTA_TYPE}'
     AND parent_checkpoint_id IN (${runCheckpoints}) AND checkpoint_id NOT IN (${runCheckpoints})`,
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
      chains.forgetThread(threadId);
      await saver.deleteThread(threadId);
    },
    async deleteRunCheckpoints(threadId, runId) {
      try {
        db.transaction(() => {
          type Dependent = { checkpoint_ns: string; checkpoint_id: string };
          chains.beforeDelete(
            threadId,
            dependents.all(threadId, threadId, runId, threadId, runId) as Dependent[],
          );
          deleteWrites.run(threadId, threadId, runId);
          deleteCheckpoints.run(threadId, threadId, runId);
        })();
      } finally {
        chains.forgetThread(threadId);
      }
    },
  };
  return { saver, admin, close: () => db.close() };
}

/**
 * The database as the official saver uses it, with every row it reads made whole: a delta row's
 * `checkpoint` becomes its full bytes (CheckpointChains.row). The saver reads with `get` and `all`.
 */
function readingWhole(db: Database, row: <T>(row: T) => T): Database {
  const bound = <O extends object>(target: O, prop: string | symbol) => {
    const value = Reflect.get(target, prop, target);
    return typeof value === "function" ? value.bind(target) : value;
  };
  const statement = (prepared: Statement): Statement =>
    new Proxy(prepared, {
      get(target, prop) {
        if (prop === "get") return (...args: unknown[]) => row(target.get(...args));
        if (prop === "all") return (...args: unknown[]) => target.all(...args).map(row);
        return bound(target, prop);
      },
    });
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => statement(target.prepare(sql));
      return bound(target, prop);
    },
  });
}
