import { createHash } from "node:crypto";
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  type ChannelVersions,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
  WRITES_IDX_MAP,
} from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type pg from "pg";
import { mergeRunMetadata } from "../checkpoint-metadata.js";
import type { CheckpointSerializer } from "../checkpoint-serde.js";
import type { LatestCheckpoint } from "../types.js";
import { CheckpointWriteLanes } from "./checkpoint-write-lanes.js";
import { type HeldTuple, HeldTuples, type HeldWrite } from "./held-tuples.js";
import { type LatestRow, latestIfHeldSql } from "./latest-if-held.js";
import { WriteBehind } from "./write-behind.js";

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
  /** The latest checkpoint this process wrote per thread namespace (see getTuple). */
  private readonly held = new HeldTuples();
  /** Latest root checkpoints claims reported, until their run's first read (see expectLatest). */
  private readonly expected = new Map<string, { latest: LatestCheckpoint | null }>();
  /** The official read of the latest checkpoint, its rows left out when the held tuple is it. */
  private readonly latestIfHeld: string;
  /** A worker's runs' writes, resolved once queued and settled at the run's end. */
  private readonly behind = new WriteBehind(this.lanes);

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
    this.latestIfHeld = latestIfHeldSql(this.tables);
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
    const behind = this.behind.applies(config);
    const [blobs, dumpedMetadata] = await Promise.all([
      this.dumpBlobs(thread_id, checkpoint_ns, checkpoint.channel_values, newVersions),
      this._dumpMetadata(mergeRunMetadata(config, metadata)),
    ]);
    // As text: pg would stringify the objects the same way, and the held tuple keeps this text.
    const checkpointJson = JSON.stringify(this._dumpCheckpoint(checkpoint));
    const metadataJson = JSON.stringify(dumpedMetadata);
    const blobRows = blobs.map((blob) => [...blob.slice(0, 5), blob[5] ?? null] as const);
    const { checkpoints, blobs: blobTable } = this.tables;
    const key = `${thread_id}\u0000${checkpoint_ns}`;
    const committed = this.lanes.submit(key, {
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
           values ${placeholders(values, [thread_id, checkpoint_ns, checkpoint.id, checkpoint_id, checkpointJson, metadataJson])}
           on conflict (thread_id, checkpoint_ns, checkpoint_id)
           do update set checkpoint = excluded.checkpoint, metadata = excluded.metadata`,
        );
        return statements;
      },
    });
    const written = new Map(
      blobs.map(([, , channel, version, type, bytes]) => [channel, { version, type, bytes: bytes ?? null }]),
    );
    await this.afterCommit(thread_id, key, committed, behind, () =>
      this.held.put(
        key,
        { checkpointId: checkpoint.id, parentId: checkpoint_id, checkpointJson, metadataJson },
        checkpoint.channel_versions,
        written,
      ),
    );
    return { configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } };
  }

  /** Waits for the thread's held-back writes (see WriteBehind); rejects with one that failed. */
  settle(threadId: string): Promise<void> {
    return this.behind.settle(threadId);
  }

  /**
   * Runs one of the writes' statements as a named prepared statement. The texts differ only by
   * their parts and numbers of rows, so there are few; past `PREPARED_MAX` the rest go unnamed.
   */
  private write(text: string, values: unknown[]): Promise<unknown> {
    return this.db.query(this.named(text, values));
  }

  /**
   * `text` as a named prepared statement while fewer than `PREPARED_MAX` are. The name is the
   * text's hash: pg keeps prepared statements per connection by name, and another saver on the
   * same pool (another schema) must never find a different text under it.
   */
  private named(text: string, values: unknown[]): pg.QueryConfig {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < PREPARED_MAX) {
      name = `berth_cp_${createHash("sha256").update(text).digest("hex").slice(0, 32)}`;
      this.names.set(text, name);
    }
    return name === undefined ? { text, values } : { name, text, values };
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
          // Not copied (the official saver copies): the serializer's bytes are never changed, it
          // keeps them for the next read, and the held tuple shares them.
          value ?? undefined,
        ] as const;
      }),
    );
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    if (writes.length === 0) return;
    const behind = this.behind.applies(config);
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
    const [thread_id, checkpoint_ns = "", checkpoint_id] = rows[0] ?? [];
    const key = `${thread_id}\u0000${checkpoint_ns}`;
    const committed = this.lanes.submit(key, {
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
    const held = rows.map(([, , , taskId, idx, channel, type, bytes]) => ({
      taskId,
      idx,
      channel,
      type,
      bytes,
    }));
    await this.afterCommit(String(thread_id), key, committed, behind, () =>
      this.held.putWrites(key, String(checkpoint_id), held, upsert),
    );
  }

  /**
   * After a write's commit, `then` (the held tuple's update). A failed one may still have
   * committed (its answer lost): the thread namespace is forgotten. A write held back resolves at
   * once; its failure is kept for `settle`.
   */
  private async afterCommit(
    threadId: string,
    key: string,
    committed: Promise<void>,
    behind: boolean,
    then: () => void,
  ): Promise<void> {
    const done = committed.then(then, (error: unknown) => {
      this.held.forget(key);
      // Kept as the commit fails, before a drain that waited for it resumes.
      if (behind) this.behind.failed(threadId, error);
      throw error;
    });
    if (!behind) return done;
    done.catch(() => {});
  }

  /**
   * The official read, but the latest checkpoint of a thread namespace this process wrote last
   * is not sent back: PostgreSQL confirms it is still the latest (same id, same number of pending
   * writes) and the rows come from the held tuple. That spares the server the blobs' aggregation
   * and hex encoding, and this process their transfer and decoding (the whole message history at
   * every run's start). Anything else, and any other answer, is the official read.
   */
  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const { thread_id, checkpoint_ns = "", checkpoint_id } = config.configurable ?? {};
    const key = `${thread_id}\u0000${checkpoint_ns}`;
    // Read what this process wrote: writes held back are sent first.
    if (!this.lanes.idle(key)) await this.lanes.drain(key);
    const expected = checkpoint_id ? undefined : this.expected.get(key)?.latest;
    this.expected.delete(key);
    const held = checkpoint_id ? undefined : this.held.get(key);
    const idle = this.lanes.idle(key);
    // What the run's claim saw: nothing to read, or the tuple held here, with no round trip.
    if (expected === null && idle) {
      this.held.forget(key);
      return undefined;
    }
    if (expected && held && idle && expected.id === held.checkpointId && expected.writes === held.writes.size)
      return this.fromHeld(thread_id, checkpoint_ns, held, [...held.writes.values()]);
    if (!held || !idle) return super.getTuple(config);
    const writes = [...held.writes.values()];
    const result = await this.db.query<LatestRow>(
      this.named(this.latestIfHeld, [thread_id, checkpoint_ns, held.checkpointId, writes.length]),
    );
    const row = result.rows[0];
    if (!row) return undefined;
    if (row.held) return this.fromHeld(thread_id, checkpoint_ns, held, writes);
    // Written elsewhere since: the official read's rows, from the same statement (a checkpoint
    // of a format before v4 goes through the official read, which migrates its pending sends).
    if (!row.checkpoint || (row.checkpoint.v < 4 && row.parent_checkpoint_id != null))
      return super.getTuple(config);
    const configurable = { thread_id, checkpoint_ns, checkpoint_id: row.checkpoint_id };
    return {
      config: { configurable },
      checkpoint: await this._loadCheckpoint(row.checkpoint, row.channel_values ?? []),
      metadata: await this._loadMetadata(row.metadata ?? {}),
      parentConfig: row.parent_checkpoint_id
        ? { configurable: { ...configurable, checkpoint_id: row.parent_checkpoint_id } }
        : undefined,
      pendingWrites: await this._loadWrites(row.pending_writes ?? []),
    };
  }

  /** The tuple the official read would return for the rows held. */
  private async fromHeld(
    thread_id: string,
    checkpoint_ns: string,
    held: HeldTuple,
    writes: HeldWrite[],
  ): Promise<CheckpointTuple> {
    const configurable = { thread_id, checkpoint_ns, checkpoint_id: held.checkpointId };
    // The official read's order, by task then index (special channels' negative indexes first);
    // task ids are UUIDs of one shape, which order the same by code unit as by the collation.
    const ordered = [...writes].sort(
      (a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0) || a.idx - b.idx,
    );
    const load = (type: string, bytes: Uint8Array) => this.serializer.loadsTyped(type, bytes);
    // In the order PostgreSQL lists a jsonb object's keys (shorter first), as the official read.
    const channels = [...held.blobs].sort(([a], [b]) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
    const values = await Promise.all(
      channels.flatMap(([channel, { type, bytes }]) =>
        type === "empty" || bytes === null
          ? []
          : [load(type, bytes).then((value) => [channel, value] as const)],
      ),
    );
    return {
      config: { configurable },
      checkpoint: {
        ...(await this._loadCheckpoint(JSON.parse(held.checkpointJson), [])),
        channel_values: Object.fromEntries(values),
      },
      metadata: await this._loadMetadata(JSON.parse(held.metadataJson)),
      parentConfig: held.parentId
        ? { configurable: { ...configurable, checkpoint_id: held.parentId } }
        : undefined,
      pendingWrites: await Promise.all(
        ordered.map(
          async (w) => [w.taskId, w.channel, await load(w.type, w.bytes)] as [string, string, unknown],
        ),
      ),
    };
  }

  /**
   * What the claim of a run on `threadId` saw as its latest root checkpoint (CheckpointAdmin's
   * `expectLatest`): the run's first read of the thread is answered from the tuple held when it
   * is that checkpoint with as many pending writes (a claim sees the thread's previous run ended,
   * and no other run writes to the thread while this one holds it). Kept for that one read.
   */
  expectLatest(threadId: string, latest: LatestCheckpoint | null): () => void {
    const key = `${threadId}\u0000`;
    const expectation = { latest };
    this.expected.set(key, expectation);
    return () => {
      if (this.expected.get(key) === expectation) this.expected.delete(key);
    };
  }

  override async deleteThread(threadId: string): Promise<void> {
    await this.forgetThread(threadId);
    await super.deleteThread(threadId);
  }

  /**
   * Forgets what is held of a thread (its checkpoints are being removed or replaced), once its
   * writes held back are sent: none lands after the change.
   */
  async forgetThread(threadId: string): Promise<void> {
    await this.flush(threadId);
    this.held.forgetThread(threadId);
  }

  /** Sends the thread's writes held back (in every namespace) and waits for their commits. */
  flush(threadId: string): Promise<void> {
    return this.behind.flush(threadId);
  }
}
