import type { RunnableConfig } from "@langchain/core/runnables";
import {
  type ChannelVersions,
  type Checkpoint,
  type CheckpointMetadata,
  type PendingWrite,
  WRITES_IDX_MAP,
} from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type pg from "pg";
import { mergeRunMetadata } from "../checkpoint-metadata.js";
import { CheckpointSerializer } from "../checkpoint-serde.js";
import type { CheckpointAdmin } from "../types.js";
import { CheckpointWriteLanes } from "./checkpoint-write-lanes.js";

/** `items` as one row of parameters, numbered after those already in `values`. */
function placeholders(values: unknown[], items: readonly unknown[]): string {
  return `(${items.map((item) => `$${values.push(item)}`).join(", ")})`;
}

/** At most this many distinct statement texts are prepared by name (per connection, by pg). */
const PREPARED_MAX = 64;

/**
 * The official PostgreSQL checkpointer, storing run context in checkpoint metadata, and writing a
 * checkpoint with the task writes that came meanwhile in one statement (issue 31). The official
 * saver sends BEGIN, one INSERT per changed channel, the checkpoint's INSERT and COMMIT: 3–5
 * round trips per step, 22 of an echo run's 43 statements. Here the same rows go in one INSERT
 * (blobs and writes in data-modifying CTEs, atomic with the checkpoint's row; see
 * CheckpointWriteLanes), with the official conflict rules; rows, tables and reads are the
 * official saver's.
 */
export class BerthPostgresSaver extends PostgresSaver {
  private readonly tables: { checkpoints: string; blobs: string; writes: string };
  /**
   * Names of the prepared forms of the writes' statements, by text (one per row count): PostgreSQL
   * parses and plans a named statement once per connection instead of at every step.
   */
  private readonly names = new Map<string, string>();
  /** Each thread namespace's writes in order, those that queue up sent as one statement. */
  private readonly lanes = new CheckpointWriteLanes((text, values) => this.write(text, values));

  constructor(
    private readonly db: pg.Pool,
    private readonly serializer: CheckpointSerializer,
    options: { schema: string },
  ) {
    super(db, serializer, options);
    const t = (table: string) => `"${options.schema}".${table}`;
    this.tables = {
      checkpoints: t("checkpoints"),
      blobs: t("checkpoint_blobs"),
      writes: t("checkpoint_writes"),
    };
  }

  /**
   * A channel's next version: the next integer, plus a random fraction so that it is unique to
   * this write and not only within one lineage. Blobs are kept per (thread, namespace, channel,
   * version) and the first write wins (ON CONFLICT DO NOTHING): with the official saver's plain
   * integers, a branch (a run from an earlier checkpoint, or the run after a rollback) that reaches
   * a version its sibling already wrote reads the sibling's value back (langgraphjs#1812; the
   * Python saver mints unique versions too). Still a number, ordered by its integer part as
   * LangGraph compares versions, so checkpoints written with integer versions go on unchanged.
   */
  override getNextVersion(current: number | undefined): number {
    const previous = typeof current === "number" && Number.isFinite(current) ? Math.floor(current) : 0;
    // In (0.001, 0.999): never an integer (an older checkpoint's version) nor the next integer.
    return previous + 1 + 0.001 + Math.random() * 0.998;
  }

  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    if (config.configurable === undefined) throw new Error(`Missing "configurable" field in "config" param`);
    const { thread_id, checkpoint_ns = "", checkpoint_id } = config.configurable;
    const [blobs, dumpedMetadata] = await Promise.all([
      this.dumpBlobs(thread_id, checkpoint_ns, checkpoint.channel_values, newVersions),
      this._dumpMetadata(mergeRunMetadata(config, metadata)),
    ]);
    const dumpedCheckpoint = this._dumpCheckpoint(checkpoint);
    const blobRows = blobs.map((blob) => [...blob.slice(0, 5), blob[5] ?? null]);
    const { checkpoints, blobs: blobTable } = this.tables;
    await this.lanes.submit(`${thread_id}\u0000${checkpoint_ns}`, {
      keys: [`c\u0000${checkpoint.id}`, ...blobRows.map((b) => `b\u0000${b[2]}\u0000${b[3]}`)],
      build(values) {
        const statements = [];
        if (blobRows.length)
          statements.push(
            `insert into ${blobTable} (thread_id, checkpoint_ns, channel, version, type, blob)
             values ${blobRows.map((b) => placeholders(values, b)).join(", ")}
             on conflict (thread_id, checkpoint_ns, channel, version) do nothing`,
          );
        statements.push(
          `insert into ${checkpoints}
             (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
           values ${placeholders(values, [thread_id, checkpoint_ns, checkpoint.id, checkpoint_id, dumpedCheckpoint, dumpedMetadata])}
           on conflict (thread_id, checkpoint_ns, checkpoint_id)
           do update set checkpoint = excluded.checkpoint, metadata = excluded.metadata`,
        );
        return statements;
      },
    });
    return { configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } };
  }

  /**
   * Runs one of the writes' statements as a named prepared statement. The texts differ only by
   * their parts and numbers of rows, so there are few; past `PREPARED_MAX` the rest go unnamed.
   */
  private write(text: string, values: unknown[]): Promise<unknown> {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < PREPARED_MAX) {
      name = `berth_checkpoint_write_${this.names.size}`;
      this.names.set(text, name);
    }
    return this.db.query(name === undefined ? { text, values } : { name, text, values });
  }

  /**
   * The official `_dumpBlobs` (one row per changed channel, "empty" for a channel with no value),
   * each value serialised as its thread channel's latest (read back by the next run unparsed).
   */
  private dumpBlobs(
    threadId: string,
    ns: string,
    values: Record<string, unknown>,
    versions: ChannelVersions,
  ) {
    return Promise.all(
      Object.entries(versions).map(async ([channel, version]) => {
        const [type, value] =
          channel in values
            ? await this.serializer.dumpsTypedFor(`${threadId}\u0000${ns}\u0000${channel}`, values[channel])
            : ["empty", null];
        return [
          threadId,
          ns,
          channel,
          version.toString(),
          type,
          value ? new Uint8Array(value) : undefined,
        ] as const;
      }),
    );
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    if (writes.length === 0) return;
    const upsert = writes.every(([channel]) => channel in WRITES_IDX_MAP);
    const dumped = await this._dumpWrites(
      config.configurable?.thread_id,
      config.configurable?.checkpoint_ns,
      config.configurable?.checkpoint_id,
      taskId,
      writes as [string, unknown][],
    );
    // Written one by one, a later write to the same (task, idx) replaced an earlier one (upsert)
    // or lost to it (insert); one statement may not touch a row twice, so keep that one.
    const byKey = new Map<string, (typeof dumped)[number]>();
    for (const write of dumped) {
      const key = `${write[3]}\u0000${write[4]}`;
      if (upsert || !byKey.has(key)) byKey.set(key, write);
    }
    const rows = [...byKey.values()];
    const table = this.tables.writes;
    const [thread_id, checkpoint_ns, checkpoint_id] = rows[0] ?? [];
    await this.lanes.submit(`${thread_id}\u0000${checkpoint_ns}`, {
      keys: rows.map((w) => `w\u0000${checkpoint_id}\u0000${w[3]}\u0000${w[4]}`),
      build: (values) => [
        `insert into ${table} (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
         values ${rows.map((w) => placeholders(values, w)).join(", ")}
         on conflict (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) ${
           upsert
             ? "do update set channel = excluded.channel, type = excluded.type, blob = excluded.blob"
             : "do nothing"
         }`,
      ],
    });
  }
}

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
