import type { Assistant, JsonObject, RunStatus, Thread, ThreadStatus } from "@berth-platform/schemas";

export * from "./run-records.js";

import type {
  CancelResult,
  ClaimedRun,
  ClaimFor,
  CreateRunRequest,
  CreateRunResult,
  LatestCheckpoint,
  RecoveryReport,
  RunCompletion,
  RunRecord,
} from "./run-records.js";

/** Threads: the conversation containers. */
export interface ThreadStore {
  /** Inserts a thread; with `ifExists: "do_nothing"` returns the existing one instead of a 409. */
  create(thread: Thread, ifExists: "raise" | "do_nothing"): Promise<Thread>;
  get(threadId: string): Promise<Thread | undefined>;
  /**
   * The thread's config alone, as the JSON text it is stored as (a run's create reads it, and may
   * present it back as `CreateRunRequest.expected`); undefined when the thread does not exist.
   */
  configJson(threadId: string): Promise<string | undefined>;
  /**
   * The thread's values as the JSON text they are stored as, "null" when it has none or does not
   * exist (a join's answer, sent as it is).
   */
  valuesJson(threadId: string): Promise<string>;
  /** Deletes a thread and (by cascade) its runs; false when it did not exist. */
  delete(threadId: string): Promise<boolean>;
  /** Threads matching every given filter (metadata/values by JSON containment), sorted and paged. */
  search(
    filter: ThreadFilter & { limit: number; offset: number; sortBy: string; sortOrder: "asc" | "desc" },
  ): Promise<Thread[]>;
  count(filter: ThreadFilter): Promise<number>;
  /** Merges metadata into the thread's; undefined when it does not exist. */
  patch(threadId: string, metadata: JsonObject): Promise<Thread | undefined>;
  /** Records the thread's state after a state update (values, interrupts, interrupted or idle). */
  setState(
    threadId: string,
    state: { values: unknown; interrupts: JsonObject; hasNext: boolean },
  ): Promise<void>;
  /** Runs of the thread that are pending or running. */
  activeRunIds(threadId: string): Promise<string[]>;
}

/** Filters of a thread search. */
export interface ThreadFilter {
  ids?: string[] | null | undefined;
  metadata?: JsonObject | null | undefined;
  values?: JsonObject | null | undefined;
  status?: ThreadStatus | null | undefined;
}

/** Runs and the durable run queue: the run record is the queue item. */
export interface RunStore {
  /** Atomically: check the thread, apply the multitask decision, insert the run, mark the thread busy. */
  create(request: CreateRunRequest): Promise<CreateRunResult>;
  /**
   * Whether `create` checks `CreateRunRequest.expected` (so a caller may build runs from rows it
   * read before, across processes): PostgreSQL, where the check is part of the create's function.
   */
  readonly checksCreateReads: boolean;
  get(threadId: string, runId: string): Promise<RunRecord | undefined>;
  /**
   * A join's read: the run's status and, once it has ended (success, error, timeout, interrupted),
   * what a join answers (resultFromRows: its error, its thread's interrupts, or its thread's values
   * as stored JSON text, "null" when none), read in the same statement. Undefined when the run
   * does not exist.
   */
  joinState(threadId: string, runId: string): Promise<{ status: RunStatus; resultJson?: string } | undefined>;
  /** Newest first. */
  list(
    threadId: string,
    options: { limit: number; offset: number; status?: RunStatus | undefined },
  ): Promise<RunRecord[]>;
  /** Claims the oldest runnable pending run whose thread has no running run; undefined when none. */
  claimNext(owner: string, leaseMs: number, nowMs: number): Promise<ClaimedRun | undefined>;
  /** Runs waiting in the queue (metrics). */
  countPending(): Promise<number>;
  /** Epoch ms of the earliest delayed pending run, if any (to arm a wake-up timer). */
  nextAvailableAt(): Promise<number | undefined>;
  /** Extends the lease; false when the token no longer owns the run. */
  renewLease(runId: string, token: string, leaseMs: number, nowMs: number): Promise<boolean>;
  /** Records the end of a run and recomputes its thread's status; false when the token is stale. */
  complete(completion: RunCompletion): Promise<boolean>;
  /**
   * `complete`, then claims the next runnable run for `claimFor` in the same transaction where
   * the store can do so without risking the end: SQLite (write transactions are serialised), and
   * PostgreSQL for the common end (its function catches a claim lost to another process). `next`
   * is undefined otherwise, and when nothing was claimed: the queue then claims as usual.
   */
  completeAndClaim(
    completion: RunCompletion,
    claimFor: ClaimFor,
  ): Promise<{ applied: boolean; next: ClaimedRun | undefined }>;
  /**
   * Cancels runs of a thread: pending ones end now (`interrupted`, or deleted for rollback), running
   * ones get the action recorded for their worker. Terminal runs are left alone. Returns what was done.
   */
  cancel(threadId: string, runIds: string[], action: "interrupt" | "rollback"): Promise<CancelResult[]>;
  /** Deletes a run that is not active; "active" when it is pending or running. */
  delete(threadId: string, runId: string): Promise<"deleted" | "active" | "missing">;
  /** The cancellation asked of a running run, if any. */
  cancelAction(runId: string): Promise<"interrupt" | "rollback" | undefined>;
  /** Hands runs owned by `owner` back to the queue (graceful shutdown); not counted as an attempt. */
  release(owner: string): Promise<string[]>;
  /**
   * Runs left `running` by an owner other than `liveOwner` whose lease expired (or all of them when
   * `allForeign`, used at start-up when this process holds the data directory's lock): back to
   * `pending`, or `error` once `maxAttempts` are spent. `deadOwner`: only that owner's runs (a
   * process known to have died; with `allForeign`, whatever their lease).
   */
  recover(options: {
    liveOwner: string;
    nowMs: number;
    maxAttempts: number;
    allForeign: boolean;
    deadOwner?: string | undefined;
    /**
     * The runs `liveOwner` is executing. Given, its other runs whose lease expired are orphans too:
     * a claim (or a finish that claimed the next run) committed while its answer was lost with the
     * connection, so this process never started them and nobody else would reap them.
     */
    executing?: ReadonlySet<string> | undefined;
  }): Promise<RecoveryReport>;
}

/** Filters of an assistant search. */
export interface AssistantFilter {
  graph_id?: string | null | undefined;
  name?: string | null | undefined;
  metadata?: JsonObject | null | undefined;
}

/** The fields of an assistant a version holds. */
export type AssistantVersionFields = Pick<
  Assistant,
  "graph_id" | "config" | "context" | "metadata" | "name" | "description"
>;

/** One version of an assistant. */
export type AssistantVersion = AssistantVersionFields & {
  assistant_id: string;
  version: number;
  created_at: string;
};

/** Assistants, versioned: every change is a new version, and one version is the current one. */
export interface AssistantStore {
  /** Inserts the system assistants at start-up when missing. */
  upsertSystem(assistants: Assistant[]): Promise<void>;
  /** Inserts an assistant (version 1); with `ifExists: "do_nothing"` returns the existing one instead of a 409. */
  create(assistant: Assistant, ifExists: "raise" | "do_nothing"): Promise<Assistant>;
  get(assistantId: string): Promise<Assistant | undefined>;
  /** Adds a version made of the current one with `changes` applied, and makes it current. */
  patch(assistantId: string, changes: Partial<AssistantVersionFields>): Promise<Assistant | undefined>;
  delete(assistantId: string): Promise<boolean>;
  search(
    filter: AssistantFilter & {
      limit: number;
      offset: number;
      sort_by?: string | null | undefined;
      sort_order?: "asc" | "desc" | null | undefined;
    },
  ): Promise<Assistant[]>;
  count(filter: AssistantFilter): Promise<number>;
  /** Versions, newest first. */
  versions(
    assistantId: string,
    options: { metadata?: JsonObject | null | undefined; limit: number; offset: number },
  ): Promise<AssistantVersion[]>;
  /** Makes an existing version the current one; undefined when the assistant or version does not exist. */
  setLatest(assistantId: string, version: number): Promise<Assistant | undefined>;
}

/** Checkpoint housekeeping the LangGraph checkpointer interface does not offer. */
export interface CheckpointAdmin {
  /** Deletes every checkpoint (and its writes) a run wrote on a thread, in every namespace: rollback. */
  deleteRunCheckpoints(threadId: string, runId: string): Promise<void>;
  /** Deletes all of a thread's checkpoints. */
  deleteThread(threadId: string): Promise<void>;
  /** Copies every checkpoint (and write) of a thread to another thread id. */
  copyThread(fromThreadId: string, toThreadId: string): Promise<void>;
  /**
   * The `run_id` in the metadata of the thread's latest root checkpoint (what `getState` would
   * report), read without loading the checkpoint itself; undefined when there is none.
   */
  latestRunId(threadId: string): Promise<string | undefined>;
  /**
   * What a claim saw as the thread's latest root checkpoint, just before its run starts: the
   * checkpointer may answer that run's first read of the thread from what it holds when it is
   * that checkpoint, without asking the database. Returns what withdraws it if still unread.
   */
  expectLatest?(threadId: string, latest: LatestCheckpoint | null): () => void;
  /**
   * Waits until the writes of the thread's run this process executed are committed: a
   * checkpointer may resolve a run's writes before (WRITE_BEHIND_KEY). Rejects with the first
   * that failed. The worker calls it before it reports the run's end, whatever the end.
   */
  settle?(threadId: string): Promise<void>;
}

/** The storage port: one backend (SQLite files, or a PostgreSQL database) behind it. */
export interface Storage {
  threads: ThreadStore;
  runs: RunStore;
  assistants: AssistantStore;
  items: ItemStore;
  crons: CronStore;
  close(): Promise<void>;
}

/** Thread status values accepted by the stores. */
export type { ThreadStatus };

/** An item of the long-term memory store. */
export interface StoredItem {
  namespace: string[];
  key: string;
  value: JsonObject;
  created_at: string;
  updated_at: string;
}

/** Long-term memory (the Store API and the graphs' `BaseStore`): items by namespace and key. */
export interface ItemStore {
  /** Inserts or replaces an item; `ttlMinutes` null keeps it until deleted. */
  put(
    item: { namespace: string[]; key: string; value: JsonObject; ttlMinutes: number | null },
    nowMs: number,
  ): Promise<void>;
  /** The unexpired item; `refreshTtl` restarts its time to live. */
  get(
    namespace: string[],
    key: string,
    options: { refreshTtl: boolean; nowMs: number },
  ): Promise<StoredItem | undefined>;
  delete(namespace: string[], key: string): Promise<void>;
  /** Unexpired items under a namespace prefix whose value matches `filter`, newest update first. */
  search(query: {
    prefix: string[];
    filter: JsonObject | null;
    limit: number;
    offset: number;
    refreshTtl: boolean;
    nowMs: number;
  }): Promise<StoredItem[]>;
  /** Distinct namespaces of unexpired items, sorted; conditions may use "*" for any label. */
  listNamespaces(query: {
    prefix: string[] | null;
    suffix: string[] | null;
    maxDepth: number | null;
    limit: number;
    offset: number;
    nowMs: number;
  }): Promise<string[][]>;
  /** Deletes expired items; returns how many. */
  sweep(nowMs: number): Promise<number>;
}

/** A cron as stored. */
export interface CronRecord {
  cron_id: string;
  assistant_id: string;
  thread_id: string | null;
  user_id: string | null;
  schedule: string;
  timezone: string;
  end_time: string | null;
  payload: JsonObject;
  metadata: JsonObject;
  enabled: boolean;
  on_run_completed: "delete" | "keep" | null;
  /** Epoch ms of the next occurrence to fire; null once the schedule is over. */
  next_run_at: number | null;
  created_at: string;
  updated_at: string;
}

/** Filters of a cron search or count. */
export interface CronFilter {
  assistant_id?: string | null | undefined;
  thread_id?: string | null | undefined;
  enabled?: boolean | null | undefined;
  metadata?: JsonObject | null | undefined;
}

/** Scheduled runs. */
export interface CronStore {
  /** Inserts a cron; a thread cron whose thread does not exist is a 404. */
  create(cron: CronRecord): Promise<CronRecord>;
  get(cronId: string): Promise<CronRecord | undefined>;
  /** Applies `change` to the stored cron in one transaction; undefined when it does not exist. */
  update(cronId: string, change: (cron: CronRecord) => CronRecord): Promise<CronRecord | undefined>;
  delete(cronId: string): Promise<boolean>;
  search(
    filter: CronFilter & { limit: number; offset: number; sortBy: string; sortOrder: "asc" | "desc" },
  ): Promise<CronRecord[]>;
  count(filter: CronFilter): Promise<number>;
  /**
   * Claims every enabled cron due at `nowMs`: in one transaction each one's `next_run_at` moves to
   * `advance(cron)`, so an occurrence is handed out once, whatever restarts follow.
   */
  claimDue(nowMs: number, advance: (cron: CronRecord) => number | null): Promise<CronRecord[]>;
  /** Epoch ms of the earliest occurrence of an enabled cron, if any (to arm the scheduler's timer). */
  nextDueAt(): Promise<number | undefined>;
}

/** An opened backend: the stores, the LangGraph checkpointer on the same database, and its housekeeping. */
export interface StorageBackend {
  storage: Storage;
  /** The official checkpointer of the backend (SqliteSaver or PostgresSaver), handed to every graph. */
  checkpointer: unknown;
  checkpoints: CheckpointAdmin;
  /**
   * Whether other processes use the same database at once (PostgreSQL): then no start-up may take
   * every `running` run for orphaned, only leases that expired.
   */
  shared: boolean;
}
