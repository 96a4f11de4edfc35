import { randomUUID } from "node:crypto";
import type { Kysely, Selectable } from "kysely";
import { StaleReadsError } from "../stale-reads.js";
import type {
  CreateReads,
  CreateRunRequest,
  CreateRunResult,
  LatestCheckpoint,
  RunRecord,
} from "../types.js";
import type { AgentServerDb, RunsTable } from "./schema.js";

/** A run row to insert, as the create's one-statement path takes it. */
export interface ShortcutRunRow {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: string;
  status: string;
  metadata: string;
  kwargs: string;
  multitask_strategy: string;
  attempt: number;
  available_at: number;
  lease_owner: string | null;
  lease_token: string | null;
  lease_expires_at: number | null;
}

/**
 * One-round-trip forms of the run path's common cases, where the database can run them as one
 * statement with the same locks and the same fresh reads as the store's transactions (PostgreSQL:
 * server-side functions). Each answers whether it applied; when it did not, the store takes its
 * general path, so the shortcuts never decide anything the general path would decide differently.
 */
export interface RunShortcuts {
  /**
   * Inserts `run` and marks its thread busy (with `config` as its config when given) when the
   * thread exists, has no pending or running run, and its metadata already holds every key of
   * `threadMetadata` with the same value; else changes nothing. With `expected`: "stale" (nothing
   * written) when the assistant or the thread's config is not as the caller read it.
   */
  createOnIdleThread(
    db: Kysely<AgentServerDb>,
    run: ShortcutRunRow,
    threadMetadata: string,
    config: string | null,
    now: string,
    expected: CreateReads | undefined,
  ): Promise<"created" | "not-applied" | "stale">;
  /**
   * Ends a run held by `token` and stores its thread's values, `busy` while other runs of the
   * thread are active else `idle`. False when the token no longer owns the run or the thread is gone.
   */
  finish(db: Kysely<AgentServerDb>, completion: ShortcutFinish): Promise<boolean>;
  /**
   * Claims the oldest runnable run (the claim's rules, SKIP LOCKED) in one statement: the row as
   * claimed, and the run id of its thread's latest checkpoint (`ClaimedRun.latestCheckpointRunId`).
   */
  claim(db: Kysely<AgentServerDb>, claim: ShortcutClaim): Promise<ShortcutClaimed | undefined>;
  /**
   * `finish`, then (when it applied) `claim`, in one statement and one transaction: a run's end
   * refills its worker's slot. A claim that another process's claim on the same thread refused
   * (the one-running-run-per-thread index) claims nothing and leaves the finish standing.
   */
  finishAndClaim(
    db: Kysely<AgentServerDb>,
    completion: ShortcutFinish,
    claim: ShortcutClaim,
  ): Promise<{ applied: boolean; claimed: ShortcutClaimed | undefined }>;
}

/** A run's common end, as the finish shortcuts take it (JSON already as text). */
export interface ShortcutFinish {
  runId: string;
  token: string;
  status: string;
  error: string | null;
  values: string | null;
  interrupts: string;
  now: string;
}

/** Who claims, under which new token, until when (`now` is `nowMs` as ISO text). */
export interface ShortcutClaim {
  owner: string;
  token: string;
  expiresAt: number;
  nowMs: number;
  now: string;
}

/** A run as a claim shortcut claimed it, with its thread's latest checkpoint (ClaimedRun's fields). */
export interface ShortcutClaimed {
  row: Selectable<RunsTable>;
  latestCheckpointRunId: string | null;
  latestCheckpoint: LatestCheckpoint | null;
}

/** Whether any string holds a NUL character (the Kysely path's guard answers those as a 400). */
export function holdsNul(values: ReadonlyArray<unknown>): boolean {
  return values.some((v) => typeof v === "string" && v.includes("\u0000"));
}

/**
 * The common create in one round trip: a thread that exists, has no active run and already
 * carries this run's graph and assistant in its metadata. Undefined when that does not hold
 * (nothing was written; the store's transaction then decides everything again). Throws
 * StaleReadsError when `request.expected` is not what the rows hold, or could not be checked.
 */
export async function createOnIdleThread(
  shortcuts: RunShortcuts,
  db: Kysely<AgentServerDb>,
  request: CreateRunRequest,
): Promise<CreateRunResult | undefined> {
  const { run, claimFor } = request;
  // What the multitask policy says of an idle thread (it accepts anything, displacing nothing).
  const decision = request.decide([]);
  // Unchecked reads never reach the general path: the caller reads again (and comes back without).
  const unchecked = () => {
    if (request.expected) throw new StaleReadsError();
    return undefined;
  };
  if (decision.kind !== "accept" || decision.displace.length > 0) return unchecked();
  const record: RunRecord = {
    ...run,
    status: "pending",
    attempt: 0,
    error: null,
    updated_at: run.created_at,
  };
  const claim =
    claimFor && run.available_at <= claimFor.nowMs ? { ...claimFor, token: randomUUID() } : undefined;
  const row: ShortcutRunRow = {
    run_id: record.run_id,
    thread_id: record.thread_id,
    assistant_id: record.assistant_id,
    created_at: record.created_at,
    status: claim ? "running" : record.status,
    metadata: JSON.stringify(record.metadata),
    kwargs: JSON.stringify(record.kwargs),
    multitask_strategy: record.multitask_strategy,
    attempt: claim ? 1 : 0,
    available_at: record.available_at,
    lease_owner: claim?.owner ?? null,
    lease_token: claim?.token ?? null,
    lease_expires_at: claim ? claim.nowMs + claim.leaseMs : null,
  };
  const threadMetadata = JSON.stringify(request.threadMetadata);
  const config = request.threadConfig ? JSON.stringify(request.threadConfig) : null;
  if (holdsNul([...Object.values(row), threadMetadata, config])) return unchecked();
  const now = new Date().toISOString();
  const outcome = await shortcuts.createOnIdleThread(db, row, threadMetadata, config, now, request.expected);
  if (outcome === "stale") throw new StaleReadsError();
  if (outcome !== "created") return undefined;
  const claimed = claim
    ? { run: { ...record, status: "running" as const, attempt: 1 }, token: claim.token, fresh: true }
    : undefined;
  // The function wrote `config` when given, else left the config it checked against `expected`.
  const configNow = config ?? request.expected?.threadConfigJson;
  return {
    run: record,
    displaced: [],
    ...(claimed ? { claim: claimed } : {}),
    ...(configNow !== undefined ? { threadConfigJson: configNow } : {}),
  };
}
