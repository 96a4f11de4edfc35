import { openSqliteFile } from "@berth-platform/server-kit";
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  type Checkpoint,
  type CheckpointMetadata,
  copyCheckpoint,
  type PendingWrite,
  WRITES_IDX_MAP,
} from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { Database, Statement } from "better-sqlite3";
import { mergeRunMetadata, streamFlushed } from "../checkpoint-metadata.js";
import { CheckpointSerializer } from "../checkpoint-serde.js";
import type { CheckpointAdmin } from "../types.js";
import { CheckpointChains } from "./checkpoint-chains.js";
import { DELTA_TYPE } from "./checkpoint-deltas.js";
import { SHARED_MMAP_BYTES } from "./database.js";
import { QueuedCommits, TurnCommits } from "./turn-commits.js";

/** Runs a write of the saver's; the promise settles once it is committed. */
type Commit = <T>(write: () => T) => Promise<T>;

/**
 * The official SQLite checkpointer, storing run context in checkpoint metadata. `put` writes the
 * official row, with the checkpoint serialised as its thread's latest value (CheckpointSerializer:
 * the thread's next run reads it back without parsing its messages), or as a change to its parent
 * row (CheckpointChains); the official reads see every row whole (readingWhole). Its writes go
 * through `commit` (TurnCommits: one transaction per turn of the event loop).
 */
export class BerthSqliteSaver extends SqliteSaver {
  private writeStatements: { ignore: Statement; replace: Statement } | undefined;

  constructor(
    private readonly raw: Database,
    private readonly serializer: CheckpointSerializer,
    private readonly chains: CheckpointChains,
    private readonly commit: Commit,
    /** Makes the writes `commit` queued visible to this connection's reads. */
    private readonly beforeRead: () => void = () => {},
  ) {
    super(readingWhole(raw, chains.row), serializer);
  }

  override async getTuple(config: RunnableConfig) {
    this.beforeRead();
    return super.getTuple(config);
  }

  override async *list(...args: Parameters<SqliteSaver["list"]>) {
    this.beforeRead();
    yield* super.list(...args);
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
    await this.commit(() =>
      this.chains.put({
        threadId,
        ns,
        id: checkpoint.id,
        parentId,
        type,
        bytes,
        reused,
        metadata: serializedMetadata,
      }),
    );
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  /** The official saver's rows, written through `commit` (its own commits them on the spot). */
  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string) {
    await streamFlushed(config, {} as CheckpointMetadata);
    this.setup();
    const configurable = config.configurable;
    if (!configurable) throw new Error("Empty configuration supplied.");
    if (!configurable.thread_id) throw new Error("Missing thread_id field in config.configurable.");
    if (!configurable.checkpoint_id) throw new Error("Missing checkpoint_id field in config.configurable.");
    const rows = await Promise.all(
      writes.map(async ([channel, value], idx) => {
        const [type, bytes] = await this.serializer.dumpsTyped(value);
        return [
          configurable.thread_id,
          configurable.checkpoint_ns,
          configurable.checkpoint_id,
          taskId,
          WRITES_IDX_MAP[channel] ?? idx,
          channel,
          type,
          bytes,
        ];
      }),
    );
    // Writes of special channels (errors, interrupts, resumes) replace; a task's own are kept once.
    const statement = writes.every(([channel]) => channel in WRITES_IDX_MAP)
      ? this.writeStatement("replace")
      : this.writeStatement("ignore");
    await this.commit(() => {
      for (const row of rows) statement.run(...row);
    });
  }

  private writeStatement(kind: "ignore" | "replace"): Statement {
    const insert = (verb: string) =>
      this.raw.prepare(
        `INSERT ${verb} INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      );
    this.writeStatements ??= { ignore: insert("OR IGNORE"), replace: insert("OR REPLACE") };
    return this.writeStatements[kind];
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
  // Other processes writing the file would wait for a transaction held until the turn ends: there
  // the turn's writes are queued and run in one short transaction instead.
  const turns = options.shared
    ? new QueuedCommits(db, () => chains.forgetAll())
    : new TurnCommits(db, () => chains.forgetAll());
  const commit: Commit = (write) => turns.write(write);
  // What the turn wrote, committed before a statement of its own (and before the file closes).
  const standAlone = () => turns.commit();
  // Queued writes are not seen by this connection until they run; an open transaction's are.
  const beforeRead = options.shared ? standAlone : () => {};
  const saver = new BerthSqliteSaver(db, new CheckpointSerializer(), chains, commit, beforeRead);
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
      beforeRead();
      const row = latestRunId.get(threadId) as { run_id: unknown } | undefined;
      return typeof row?.run_id === "string" ? row.run_id : undefined;
    },
    async copyThread(fromThreadId, toThreadId) {
      standAlone();
      db.transaction(() => {
        copyCheckpoints.run(toThreadId, toThreadId, fromThreadId);
        copyWrites.run(toThreadId, fromThreadId);
      })();
    },
    async deleteThread(threadId) {
      standAlone();
      chains.forgetThread(threadId);
      await saver.deleteThread(threadId);
    },
    async deleteRunCheckpoints(threadId, runId) {
      standAlone();
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
  return {
    saver,
    admin,
    close: () => {
      standAlone();
      db.close();
    },
  };
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
