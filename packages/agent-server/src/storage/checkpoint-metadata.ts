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
