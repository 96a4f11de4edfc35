import type { JsonObject, Thread, ThreadCount, ThreadCreate, ThreadSearch } from "@berth-platform/schemas";
import { v7 as uuidv7 } from "uuid";
import { newThread } from "../domain/thread-record.js";
import { NotFoundError } from "../errors.js";
import type { RunSignals } from "../queue/types.js";
import type { CheckpointAdmin, RunStore, ThreadStore } from "../storage/types.js";

/** Thread use cases. */
export class ThreadService {
  constructor(
    private readonly threads: ThreadStore,
    private readonly runs: RunStore,
    private readonly checkpoints: CheckpointAdmin,
    private readonly signals: RunSignals,
  ) {}

  /**
   * Creates a thread (or, with `if_exists: do_nothing`, returns the existing one). `seed` then runs
   * on it (the `supersteps` history); if it fails, a thread created here is deleted again, so a
   * refused history leaves nothing behind.
   */
  async create(body: ThreadCreate, seed?: (thread: Thread) => Promise<void>): Promise<Thread> {
    const now = new Date().toISOString();
    const threadId = body.thread_id ?? uuidv7();
    const existed =
      seed !== undefined && body.if_exists === "do_nothing" && Boolean(await this.threads.get(threadId));
    const thread = await this.threads.create(newThread(threadId, now, body.metadata ?? {}), body.if_exists);
    if (!seed) return thread;
    try {
      await seed(thread);
    } catch (error) {
      if (!existed) await this.delete(threadId).catch(() => undefined);
      throw error;
    }
    return (await this.threads.get(threadId)) ?? thread;
  }

  async get(threadId: string): Promise<Thread> {
    const thread = await this.threads.get(threadId);
    if (!thread) throw new NotFoundError(`Thread with ID ${threadId} not found`);
    return thread;
  }

  search(filter: ThreadSearch): Promise<Thread[]> {
    return this.threads.search({
      ...filter,
      sortBy: filter.sort_by ?? "created_at",
      sortOrder: filter.sort_order ?? "desc",
    });
  }

  count(filter: ThreadCount): Promise<number> {
    return this.threads.count(filter);
  }

  async patch(threadId: string, metadata: JsonObject): Promise<Thread> {
    const thread = await this.threads.patch(threadId, metadata);
    if (!thread) throw new NotFoundError(`Thread with ID ${threadId} not found`);
    return thread;
  }

  /** Deletes a thread with its runs and checkpoints; its active runs are stopped first. */
  async delete(threadId: string): Promise<void> {
    const active = await this.threads.activeRunIds(threadId);
    if (active.length > 0) {
      const results = await this.runs.cancel(threadId, active, "interrupt");
      for (const r of results) if (r.outcome === "signalled") this.signals.cancel(r.run_id);
    }
    if (!(await this.threads.delete(threadId)))
      throw new NotFoundError(`Thread with ID ${threadId} not found`);
    await this.checkpoints.deleteThread(threadId);
  }

  /** Deletes every thread whose runs used the assistant (thread metadata `assistant_id`), as delete does. */
  async deleteOfAssistant(assistantId: string): Promise<number> {
    let deleted = 0;
    for (;;) {
      const page = await this.threads.search({
        metadata: { assistant_id: assistantId },
        limit: 100,
        offset: 0,
        sortBy: "created_at",
        sortOrder: "asc",
      });
      if (page.length === 0) return deleted;
      for (const thread of page) {
        await this.delete(thread.thread_id).catch((error: unknown) => {
          // Deleted meanwhile by another request: nothing left to do for it.
          if (!(error instanceof NotFoundError)) throw error;
        });
        deleted += 1;
      }
    }
  }

  /** A new thread with the same metadata, values and checkpoints. */
  async copy(threadId: string): Promise<Thread> {
    const source = await this.get(threadId);
    const now = new Date().toISOString();
    const copy = await this.threads.create(
      {
        ...source,
        thread_id: uuidv7(),
        created_at: now,
        updated_at: now,
        state_updated_at: now,
        status: source.status === "busy" ? "idle" : source.status,
      },
      "raise",
    );
    await this.checkpoints.copyThread(threadId, copy.thread_id);
    return copy;
  }
}
