import { z } from "zod";
import { JsonObject, ThreadStatus, Uuid } from "./common.js";

/** `POST /threads`: every field optional, an empty body is allowed. */
export const ThreadCreate = z
  .object({
    thread_id: Uuid.optional(),
    metadata: JsonObject.nullish(),
    if_exists: z.enum(["raise", "do_nothing"]).default("raise"),
  })
  .default({ if_exists: "raise" });
export type ThreadCreate = z.infer<typeof ThreadCreate>;

/** The Thread resource. */
export const Thread = z.object({
  thread_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  state_updated_at: z.string(),
  metadata: JsonObject,
  status: ThreadStatus,
  config: JsonObject,
  values: z.unknown().nullable(),
  interrupts: JsonObject,
});
export type Thread = z.infer<typeof Thread>;

/** Path parameters naming a thread. */
export const ThreadParams = z.object({ thread_id: Uuid });
