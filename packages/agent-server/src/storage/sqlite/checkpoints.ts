import type { RunnableConfig } from "@langchain/core/runnables";
import type { Checkpoint, CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { mergeRunMetadata } from "../checkpoint-metadata.js";
import type { CheckpointAdmin } from "../types.js";
import { cacheStatements } from "./statement-cache.js";

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
  cacheStatements(db);
  const saver = new BerthSqliteSaver(db);
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
  const admin: CheckpointAdmin = {
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
