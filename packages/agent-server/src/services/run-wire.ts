import type { Run } from "@berth-platform/schemas";
import type { RunRecord } from "../storage/types.js";

/** The wire form of a run: the record without the queue's bookkeeping. */
export function toRunWire(run: RunRecord): Run {
  return {
    run_id: run.run_id,
    thread_id: run.thread_id,
    assistant_id: run.assistant_id,
    created_at: run.created_at,
    updated_at: run.updated_at,
    status: run.status,
    metadata: run.metadata,
    kwargs: run.kwargs,
    multitask_strategy: run.multitask_strategy,
  };
}
