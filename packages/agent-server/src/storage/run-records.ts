// The run records of the storage port (types.ts re-exports them): what is stored of a run, what
// a claim, a create and a run's end carry.
import type { JsonObject, MultitaskStrategy, RunKwargs, RunStatus } from "@berth-platform/schemas";
import type { ActiveRun, Displacement, MultitaskDecision } from "../queue/multitask.js";

/** A run as stored: the wire record plus the queue's bookkeeping. */
export interface RunRecord {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: string;
  updated_at: string;
  status: RunStatus;
  metadata: JsonObject;
  kwargs: RunKwargs;
  multitask_strategy: MultitaskStrategy;
  /** Attempts started so far (incremented at each claim). */
  attempt: number;
  /** Epoch ms before which the run may not start (`after_seconds`). */
  available_at: number;
  /** Error of a failed run: `{error, message}`. */
  error: { error: string; message: string } | null;
}

/** A run handed to a worker, with the fencing token every later write must present. */
export interface ClaimedRun {
  run: RunRecord;
  token: string;
  /**
   * Claimed in the transaction that inserted it: no checkpoint can carry its id yet, so the worker
   * need not look for one to resume from.
   */
  fresh?: boolean;
  /**
   * The run id in the metadata of the thread's latest checkpoint, read by the claim itself (null:
   * no checkpoint or none with a run id). Undefined when the claim did not read it: the worker
   * asks the checkpointer.
   */
  latestCheckpointRunId?: string | null;
  /**
   * The thread's latest root checkpoint as the claim saw it (null: none), for the checkpointer to
   * answer the run's first read from what it holds (CheckpointAdmin.expectLatest). Undefined when
   * the claim did not read it.
   */
  latestCheckpoint?: LatestCheckpoint | null;
  /**
   * A cancel recorded while an earlier attempt ran (its worker died or handed the run back before
   * hearing it): the worker stops this attempt at once, with that action.
   */
  cancelAction?: "interrupt" | "rollback";
}

/** A checkpoint as a claim reports it: its id and how many pending writes it has. */
export interface LatestCheckpoint {
  id: string;
  writes: number;
}

/** Fields of a run to insert (status `pending`, attempt 0). */
export type NewRun = Omit<RunRecord, "status" | "attempt" | "error" | "updated_at">;

/** What `runs.create` should do about the thread. */
export interface CreateRunRequest {
  run: NewRun;
  /** Create the thread when it does not exist (`if_not_exists: create`) instead of a 404. */
  createThreadIfMissing: boolean;
  /** Graph and assistant the thread is now bound to (merged into its metadata). */
  threadMetadata: JsonObject;
  /**
   * The run's config as the thread's `config` from now on (what factory graphs are built with on the
   * state endpoints). Written only when the thread has no active run, as the official servers do.
   */
  threadConfig?: JsonObject;
  /** The multitask policy, asked inside the same transaction that inserts the run. */
  decide: (active: ActiveRun[]) => MultitaskDecision;
  /**
   * Insert the run already claimed by this owner when it can start at once (its thread has no
   * pending or running run, and it is not delayed): the creating process has a free slot.
   */
  claimFor?: ClaimFor;
  /**
   * What the request was built from, read earlier and kept by the caller (only when the store
   * `checksCreateReads`): the store checks it in the same statement that inserts the run, and
   * throws StaleReadsError when the rows changed since (the caller then reads them again).
   */
  expected?: CreateReads;
}

/** The rows a run's create is built from, as the caller last saw them. */
export interface CreateReads {
  assistant: { assistant_id: string; version: number; updated_at: string };
  /** The thread's config as stored (JSON text); absent: not checked (read just now, or no thread). */
  threadConfigJson?: string;
}

/** Who claims a run outside claimNext (at creation, or as another run ends), and when. */
export interface ClaimFor {
  owner: string;
  leaseMs: number;
  nowMs: number;
}

/** The inserted run and the active runs it displaced. */
export interface CreateRunResult {
  /** The run as created (`pending`: what the API answers, as the official servers do). */
  run: RunRecord;
  displaced: Displacement[];
  /** Set when `claimFor` was honoured: the run is `running` under this claim's token. */
  claim?: ClaimedRun;
  /** The thread's config as stored after this create (JSON text), when the store knows it. */
  threadConfigJson?: string;
}

/**
 * The thread's values/interrupts after a run, and whether its checkpoint has tasks left. The
 * values come as they are or as their JSON already written (the worker's, WireJson).
 */
export type ThreadAfterRunRecord = ({ values: unknown } | { valuesJson: string }) & {
  interrupts: JsonObject;
  hasNext: boolean;
};

/** How a run ended, with what the thread should now show. */
export interface RunCompletion {
  runId: string;
  token: string;
  status: Exclude<RunStatus, "pending" | "running">;
  error: { error: string; message: string } | null;
  thread: ThreadAfterRunRecord | null;
  /** Rollback: delete the run record instead of keeping it. */
  deleteRun?: boolean;
}

/** What `cancel` did to one run. */
export interface CancelResult {
  run_id: string;
  /** `ended`: a pending run was finished or deleted now; `signalled`: its worker must stop it. */
  outcome: "ended" | "signalled";
  action: "interrupt" | "rollback";
}

/** Runs whose owner vanished, put back in the queue or failed for good. */
export interface RecoveryReport {
  requeued: string[];
  failed: string[];
}
