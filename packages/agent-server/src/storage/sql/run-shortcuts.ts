import type { Kysely, Selectable } from "kysely";
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
   * `threadMetadata` with the same value; else changes nothing.
   */
  createOnIdleThread(
    db: Kysely<AgentServerDb>,
    run: ShortcutRunRow,
    threadMetadata: string,
    config: string | null,
    now: string,
  ): Promise<"created" | "not-applied">;
  /**
   * Ends a run held by `token` and stores its thread's values, `busy` while other runs of the
   * thread are active else `idle`. False when the token no longer owns the run or the thread is gone.
   */
  finish(
    db: Kysely<AgentServerDb>,
    completion: {
      runId: string;
      token: string;
      status: string;
      error: string | null;
      values: string | null;
      interrupts: string;
      now: string;
    },
  ): Promise<boolean>;
  /** Claims the oldest runnable run (the claim's rules, SKIP LOCKED) in one statement; the row as claimed. */
  claim(
    db: Kysely<AgentServerDb>,
    claim: { owner: string; token: string; expiresAt: number; nowMs: number; now: string },
  ): Promise<Selectable<RunsTable> | undefined>;
}

/** Whether any string holds a NUL character (the Kysely path's guard answers those as a 400). */
export function holdsNul(values: ReadonlyArray<unknown>): boolean {
  return values.some((v) => typeof v === "string" && v.includes("\u0000"));
}
