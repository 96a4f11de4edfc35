import type { Thread, ThreadCreate } from "@berth/schemas";
import { v7 as uuidv7 } from "uuid";
import { NotFoundError } from "../errors.js";
import { emptyThreadState, toThreadState } from "../execution/state.js";
import type { GraphRegistry } from "../graphs/registry.js";
import type { ThreadStore } from "../storage/types.js";

/** Thread use cases. */
export class ThreadService {
  constructor(
    private readonly threads: ThreadStore,
    private readonly registry: GraphRegistry,
  ) {}

  create(body: ThreadCreate): Promise<Thread> {
    const now = new Date().toISOString();
    return this.threads.create(
      {
        thread_id: body.thread_id ?? uuidv7(),
        created_at: now,
        updated_at: now,
        state_updated_at: now,
        metadata: body.metadata ?? {},
        status: "idle",
        config: {},
        values: null,
        interrupts: {},
      },
      body.if_exists,
    );
  }

  async get(threadId: string): Promise<Thread> {
    const thread = await this.threads.get(threadId);
    if (!thread) throw new NotFoundError(`Thread with ID ${threadId} not found`);
    return thread;
  }

  /** The thread's current state from its latest checkpoint (empty before its first run). */
  async getState(threadId: string): Promise<Record<string, unknown>> {
    const thread = await this.get(threadId);
    const graphId = thread.metadata.graph_id;
    if (typeof graphId !== "string" || !this.registry.has(graphId)) return emptyThreadState(threadId);
    const config = { configurable: { thread_id: threadId } };
    const graph = await this.registry.getGraph(graphId, config);
    const snapshot = await graph.getState(config);
    if (!snapshot.config?.configurable?.checkpoint_id) return emptyThreadState(threadId);
    return toThreadState(graph, snapshot);
  }
}
