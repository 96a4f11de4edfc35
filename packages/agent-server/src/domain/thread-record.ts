import type { JsonObject, Thread } from "@berth-platform/schemas";

/** A thread as it is created: idle, no values, no interrupts, empty config. */
export function newThread(threadId: string, now: string, metadata: JsonObject = {}): Thread {
  return {
    thread_id: threadId,
    created_at: now,
    updated_at: now,
    state_updated_at: now,
    metadata,
    status: "idle",
    config: {},
    values: null,
    interrupts: {},
  };
}
