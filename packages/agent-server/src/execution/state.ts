import type { RunnableConfig } from "@langchain/core/runnables";
import type { StateSnapshot } from "@langchain/langgraph";
import { toWire } from "../domain/serialize.js";
import type { RunnableGraph } from "../graphs/registry.js";

/** `checkpoint` / `parent_checkpoint` objects as the SDK reads them. */
function checkpointRef(config: RunnableConfig | undefined): Record<string, unknown> | null {
  const c = config?.configurable;
  if (!c?.checkpoint_id) return null;
  return {
    thread_id: c.thread_id ?? null,
    checkpoint_ns: c.checkpoint_ns ?? "",
    checkpoint_id: c.checkpoint_id,
    checkpoint_map: c.checkpoint_map ?? null,
  };
}

/** Interrupts of a snapshot keyed by task id (`thread.interrupts`). */
export function interruptsByTask(snapshot: StateSnapshot): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const task of snapshot.tasks) {
    if (task.interrupts.length > 0) out[task.id] = toWire(task.interrupts) as unknown[];
  }
  return out;
}

/** The state of a thread that has never run a graph. */
export function emptyThreadState(threadId: string): Record<string, unknown> {
  return {
    values: {},
    next: [],
    tasks: [],
    metadata: {},
    created_at: null,
    checkpoint: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: null, checkpoint_map: null },
    parent_checkpoint: null,
    checkpoint_id: null,
    parent_checkpoint_id: null,
    interrupts: [],
  };
}

/**
 * A LangGraph StateSnapshot as the Agent Server API's ThreadState. `metadata.writes` (what the step
 * that produced the checkpoint wrote, by node) is rebuilt from the parent checkpoint's task results,
 * since LangGraph 1.x no longer stores it.
 */
export async function toThreadState(
  graph: RunnableGraph,
  snapshot: StateSnapshot,
  /** The parent's snapshot when the caller has it (history), null when there is none. */
  parent?: StateSnapshot | null,
): Promise<Record<string, unknown>> {
  const metadata = { ...(toWire(snapshot.metadata ?? {}) as Record<string, unknown>) };
  if (!("writes" in metadata)) {
    metadata.writes =
      parent === undefined ? await stepWrites(graph, snapshot) : parent ? writesOf(parent) : null;
  }
  const checkpoint = checkpointRef(snapshot.config);
  const parentRef = checkpointRef(snapshot.parentConfig);
  return {
    values: toWire(snapshot.values) ?? {},
    next: snapshot.next,
    tasks: snapshot.tasks.map((task) => ({
      id: task.id,
      name: task.name,
      path: task.path ?? [],
      error: task.error === undefined || task.error === null ? null : String(task.error),
      interrupts: toWire(task.interrupts),
      checkpoint: null,
      state: null,
      result: toWire(task.result) ?? null,
    })),
    metadata,
    created_at: snapshot.createdAt ?? null,
    checkpoint,
    parent_checkpoint: parentRef,
    checkpoint_id: checkpoint?.checkpoint_id ?? null,
    parent_checkpoint_id: parentRef?.checkpoint_id ?? null,
    interrupts: toWire(snapshot.tasks.flatMap((task) => task.interrupts)),
  };
}

async function stepWrites(
  graph: RunnableGraph,
  snapshot: StateSnapshot,
): Promise<Record<string, unknown> | null> {
  if (!snapshot.parentConfig) return null;
  return writesOf(await graph.getState(snapshot.parentConfig));
}

/** What the tasks of a snapshot wrote, by node: the `writes` of the checkpoint that follows it. */
function writesOf(parent: StateSnapshot): Record<string, unknown> | null {
  const finished = parent.tasks.filter((task) => task.result !== undefined);
  if (finished.length === 0) return null;
  return Object.fromEntries(finished.map((task) => [task.name, toWire(task.result)]));
}
