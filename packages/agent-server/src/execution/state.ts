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

/**
 * The `checkpoint` of a task that runs a subgraph, when LangGraph gave its state as a config (state
 * read without `subgraphs`): the subgraph's namespace in the thread, as the official servers pass
 * it on (`{thread_id, checkpoint_ns}`, plus `checkpoint_id` / `checkpoint_map` when present).
 */
function taskCheckpoint(state: unknown): Record<string, unknown> | null {
  if (typeof state !== "object" || state === null || !("configurable" in state)) return null;
  const c = (state as { configurable?: Record<string, unknown> | null }).configurable;
  if (!c) return null;
  const ref: Record<string, unknown> = {
    thread_id: c.thread_id ?? null,
    checkpoint_ns: c.checkpoint_ns ?? "",
  };
  if (c.checkpoint_id !== undefined) ref.checkpoint_id = c.checkpoint_id;
  if (c.checkpoint_map !== undefined) ref.checkpoint_map = c.checkpoint_map;
  return ref;
}

/** Whether a task's state is the subgraph's own snapshot (state read with `subgraphs`). */
function isSnapshot(state: unknown): state is StateSnapshot {
  return typeof state === "object" && state !== null && "values" in state && "next" in state;
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
  /**
   * The parent's snapshot when the caller has it (history), null when there is none or `writes` is
   * not wanted (a subgraph's nested state).
   */
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
    tasks: await Promise.all(
      snapshot.tasks.map(async (task) => ({
        id: task.id,
        name: task.name,
        path: task.path ?? [],
        error: task.error === undefined || task.error === null ? null : String(task.error),
        interrupts: toWire(task.interrupts),
        // A task running a subgraph: where its state lives, or (with `subgraphs`) that state itself.
        checkpoint: taskCheckpoint(task.state),
        state: isSnapshot(task.state) ? await toThreadState(graph, task.state, null) : null,
        result: toWire(task.result) ?? null,
      })),
    ),
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
