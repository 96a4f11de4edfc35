import type { RunnableConfig } from "@langchain/core/runnables";
import { WRITE_BEHIND_KEY } from "../checkpoint-metadata.js";
import type { CheckpointWriteLanes } from "./checkpoint-write-lanes.js";

/**
 * The writes of runs a worker executes and settles (WRITE_BEHIND_KEY), for BerthPostgresSaver:
 * resolved once queued in their lane, not once committed, so LangGraph asks for the next step's at
 * once and a fast run's steps go to PostgreSQL as one statement instead of one round trip each
 * (issue 31). A failure is kept per thread until `settle` reports it; meanwhile the thread's
 * later writes fail at once (LangGraph chains a step's checkpoint on the previous one, and nothing
 * may be stored past a checkpoint that is not).
 */
export class WriteBehind {
  /** Per thread: the first of its held-back writes that failed, until `settle`. */
  private readonly failures = new Map<string, unknown>();

  constructor(private readonly lanes: CheckpointWriteLanes) {}

  /** Whether the write of `config` is held back; throws the thread's kept failure if it is. */
  applies(config: RunnableConfig): boolean {
    if (config.configurable?.[WRITE_BEHIND_KEY] !== true) return false;
    const failure = this.failures.get(config.configurable.thread_id);
    if (failure !== undefined) throw failure;
    return true;
  }

  /** Keeps a held-back write's failure (called as its commit fails, before a drain resumes). */
  failed(threadId: string, error: unknown): void {
    if (!this.failures.has(threadId)) this.failures.set(threadId, error);
  }

  /** Sends the writes of `threadId` (in every namespace) and waits for their commits. */
  flush(threadId: string): Promise<void> {
    return this.lanes.drainAll(`${threadId}\u0000`);
  }

  /** `flush`, then rejects with the first held-back write that failed since the last settle. */
  async settle(threadId: string): Promise<void> {
    await this.flush(threadId);
    const failure = this.failures.get(threadId);
    this.failures.delete(threadId);
    if (failure !== undefined) throw failure;
  }
}
