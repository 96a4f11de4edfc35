import type { RunnableConfig } from "@langchain/core/runnables";
import type { Checkpoint, CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { mergeRunMetadata } from "../checkpoint-metadata.js";
import type { CheckpointAdmin } from "../types.js";

/** The official SQLite checkpointer, storing run context in checkpoint metadata. */
export class BerthSqliteSaver extends SqliteSaver {
  override put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata) {
    return super.put(config, checkpoint, mergeRunMetadata(config, metadata));
  }

  /** Creates the tables now rather than at the first call (housekeeping statements need them). */
  init(): void {
    this.setup();
  }
}

/** Opens the checkpoint file (WAL) with the official SqliteSaver and its housekeeping. */
export function openSqliteCheckpointer(file: string): {
  saver: BerthSqliteSaver;
  admin: CheckpointAdmin;
  close(): void;
} {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  const saver = new BerthSqliteSaver(db);
  saver.init();
  const latest = db.prepare<[string], { checkpoint_id: string }>(
    "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1",
  );
  const deleteCheckpointsAfter = db.prepare(
    "DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id > ?",
  );
  const deleteWritesAfter = db.prepare("DELETE FROM writes WHERE thread_id = ? AND checkpoint_id > ?");
  const admin: CheckpointAdmin = {
    async latestCheckpointId(threadId) {
      return latest.get(threadId)?.checkpoint_id ?? null;
    },
    async deleteAfter(threadId, afterCheckpointId) {
      // Checkpoint ids are uuid6: their text order is their creation order, in every namespace.
      db.transaction(() => {
        deleteCheckpointsAfter.run(threadId, afterCheckpointId ?? "");
        deleteWritesAfter.run(threadId, afterCheckpointId ?? "");
      })();
    },
  };
  return { saver, admin, close: () => db.close() };
}
