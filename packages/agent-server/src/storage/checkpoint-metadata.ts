import type { RunnableConfig } from "@langchain/core/runnables";
import type { CheckpointMetadata } from "@langchain/langgraph-checkpoint";

const NOT_COPIED = new Set(["checkpoint_id", "checkpoint_ns", "checkpoint_map"]);

/**
 * The metadata a checkpoint is stored with: LangGraph's own (source, step, parents) over the run's
 * context (config.metadata and the primitive configurable keys: run_id, thread_id, graph_id,
 * assistant_id, user_id…), so state and history show who wrote each checkpoint and can be filtered
 * by it. Each backend's checkpointer subclass applies it in `put`.
 */
export function mergeRunMetadata(config: RunnableConfig, metadata: CheckpointMetadata): CheckpointMetadata {
  const merged: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config.configurable ?? {})) {
    if (key.startsWith("__") || NOT_COPIED.has(key)) continue;
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      merged[key] = value;
  }
  for (const [key, value] of Object.entries(config.metadata ?? {})) {
    if (key !== "ls_integration") merged[key] = value;
  }
  return { ...merged, ...metadata } as CheckpointMetadata;
}

/**
 * The configurable key of a resumable run's "stream flushed" barrier: a function that resolves
 * once the events LangGraph emitted so far are published (and so in the durable event log). The
 * checkpointer awaits it before writing, so a step is never checkpointed before its events are
 * kept: a run resumed from that checkpoint after a crash does not emit them again, and a client
 * would otherwise never get them (issue 27 item 8). `__` keys are not copied into metadata.
 */
export const STREAM_FLUSHED_KEY = "__berth_stream_flushed";

/**
 * The configurable key (true) of a run the worker executes and then settles
 * (`CheckpointAdmin.settle`) before it reports the run's end: its checkpointer may resolve the
 * run's writes before they are committed, and commit several steps' together (PostgreSQL).
 */
export const WRITE_BEHIND_KEY = "__berth_write_behind";

/** The checkpoint metadata key of the last stream event id kept before the checkpoint. */
export const STREAM_EVENT_ID_KEY = "berth_stream_event_id";

/**
 * Waits for the run's stream barrier, if its config carries one, and returns `metadata` stamped
 * with the id of the last event kept by then (when the broker keeps a durable log).
 */
export async function streamFlushed(
  config: RunnableConfig,
  metadata: CheckpointMetadata,
): Promise<CheckpointMetadata> {
  const barrier = config.configurable?.[STREAM_FLUSHED_KEY];
  if (typeof barrier !== "function") return metadata;
  const lastId = await (barrier as () => Promise<number | undefined>)();
  return lastId === undefined
    ? metadata
    : ({ ...metadata, [STREAM_EVENT_ID_KEY]: lastId } as CheckpointMetadata);
}
