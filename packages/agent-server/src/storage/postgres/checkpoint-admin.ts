import type pg from "pg";
import { CheckpointSerializer } from "../checkpoint-serde.js";
import type { CheckpointAdmin } from "../types.js";
import { BerthPostgresSaver } from "./checkpoints.js";

/** The checkpointer on `pool`, its tables in `schema` (created by `setup`), and its housekeeping. */
export function postgresCheckpointer(
  pool: pg.Pool,
  schema: string,
): { saver: BerthPostgresSaver; admin: CheckpointAdmin } {
  const saver = new BerthPostgresSaver(pool, new CheckpointSerializer(), { schema });
  const t = (table: string) => `"${schema}".${table}`;
  // Checkpoints of a run: its id is in the (JSONB) metadata the saver wrote.
  const ofRun = `select checkpoint_id from ${t("checkpoints")} where thread_id = $1 and metadata->>'run_id' = $2`;
  const inTransaction = async (statements: Array<[string, unknown[]]>) => {
    const client = await pool.connect();
    try {
      await client.query("begin");
      for (const [text, values] of statements) await client.query(text, values);
      await client.query("commit");
    } catch (error) {
      await client.query("rollback").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  };
  const admin: CheckpointAdmin = {
    expectLatest(threadId, latest) {
      return saver.expectLatest(threadId, latest);
    },
    settle(threadId) {
      return saver.settle(threadId);
    },
    async latestRunId(threadId) {
      // The saver's own getTuple picks the latest checkpoint the same way (highest id in the namespace).
      const result = await pool.query<{ run_id: string | null }>(
        `select metadata->>'run_id' as run_id from ${t("checkpoints")}
         where thread_id = $1 and checkpoint_ns = '' order by checkpoint_id desc limit 1`,
        [threadId],
      );
      return result.rows[0]?.run_id ?? undefined;
    },
    async deleteRunCheckpoints(threadId, runId) {
      await saver.forgetThread(threadId);
      // Blobs are shared between checkpoints by channel version; those left unreferenced are harmless.
      await inTransaction([
        [
          `delete from ${t("checkpoint_writes")} where thread_id = $1 and checkpoint_id in (${ofRun})`,
          [threadId, runId],
        ],
        [
          `delete from ${t("checkpoints")} where thread_id = $1 and checkpoint_id in (${ofRun})`,
          [threadId, runId],
        ],
      ]);
    },
    async deleteThread(threadId) {
      await saver.deleteThread(threadId);
    },
    async copyThread(fromThreadId, toThreadId) {
      await saver.flush(fromThreadId);
      await saver.forgetThread(toThreadId);
      // A copy's checkpoint metadata names the new thread, so history filters by thread keep working.
      await inTransaction([
        [
          `insert into ${t("checkpoints")} (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata)
           select $1, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint,
                  jsonb_set(metadata, '{thread_id}', to_jsonb($1::text))
           from ${t("checkpoints")} where thread_id = $2`,
          [toThreadId, fromThreadId],
        ],
        [
          `insert into ${t("checkpoint_blobs")} (thread_id, checkpoint_ns, channel, version, type, blob)
           select $1, checkpoint_ns, channel, version, type, blob from ${t("checkpoint_blobs")} where thread_id = $2`,
          [toThreadId, fromThreadId],
        ],
        [
          `insert into ${t("checkpoint_writes")} (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
           select $1, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob from ${t("checkpoint_writes")} where thread_id = $2`,
          [toThreadId, fromThreadId],
        ],
      ]);
    },
  };
  return { saver, admin };
}
