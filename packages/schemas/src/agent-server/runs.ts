import { z } from "zod";
import { JsonObject, MultitaskStrategy, RunStatus, StreamMode, Uuid, WebhookTarget } from "./common.js";

const NodeList = z.union([z.literal("*"), z.array(z.string())]);

/** `command` of a run: resume an interrupt, update state, or jump to a node. */
export const RunCommand = z.object({
  resume: z.unknown().optional(),
  update: z.unknown().optional(),
  goto: z.unknown().optional(),
});

/** JSON text's value, or the text itself when it is not JSON (the schema then says what is wrong). */
function parseJsonOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** `POST /threads/{thread_id}/runs` (and the stream/wait variants). */
export const RunCreateStateful = z.object({
  assistant_id: z.string().min(1),
  input: z.unknown().optional(),
  command: RunCommand.nullish(),
  metadata: JsonObject.nullish(),
  config: JsonObject.nullish(),
  context: JsonObject.nullish(),
  checkpoint_id: z.string().nullish(),
  checkpoint: JsonObject.nullish(),
  stream_mode: z.union([StreamMode, z.array(StreamMode)]).nullish(),
  stream_subgraphs: z.boolean().nullish(),
  stream_resumable: z.boolean().nullish(),
  interrupt_before: NodeList.nullish(),
  interrupt_after: NodeList.nullish(),
  webhook: WebhookTarget.nullish(),
  multitask_strategy: MultitaskStrategy.nullish(),
  if_not_exists: z.enum(["reject", "create"]).nullish(),
  after_seconds: z.number().min(0).max(31_536_000).nullish(),
  on_disconnect: z.enum(["cancel", "continue"]).nullish(),
  feedback_keys: z.array(z.string()).nullish(),
  durability: z.enum(["sync", "async", "exit"]).nullish(),
  checkpoint_during: z.boolean().nullish(),
});
export type RunCreateStateful = z.infer<typeof RunCreateStateful>;

/** `POST /runs` (and stream/wait/batch): a run on a temporary thread. */
export const RunCreateStateless = RunCreateStateful.omit({
  multitask_strategy: true,
  if_not_exists: true,
}).extend({
  on_completion: z.enum(["delete", "keep"]).nullish(),
});
export type RunCreateStateless = z.infer<typeof RunCreateStateless>;

/** `POST /threads/{thread_id}/runs/{run_id}/cancel` query. */
export const RunCancelQuery = z.object({
  wait: z
    .union([z.boolean(), z.enum(["0", "1", "true", "false"])])
    .optional()
    .transform((v) => v === true || v === "1" || v === "true"),
  action: z.enum(["interrupt", "rollback"]).default("interrupt"),
});

/** `POST /runs/cancel` body. */
export const RunCancelMany = z.object({
  thread_id: Uuid,
  run_ids: z.array(Uuid).min(1).max(1000),
});

/** `GET …/runs/{run_id}/stream` query. */
export const RunJoinStreamQuery = z.object({
  // The official SDK sends a list of modes as one JSON text (`stream_mode=["values","updates"]`);
  // repeated parameters give an array.
  stream_mode: z
    .preprocess(
      (value) => (typeof value === "string" && value.startsWith("[") ? parseJsonOr(value) : value),
      z.union([StreamMode, z.array(StreamMode)]),
    )
    .optional(),
  cancel_on_disconnect: z
    .union([z.boolean(), z.enum(["0", "1", "true", "false"])])
    .optional()
    .transform((v) => v === true || v === "1" || v === "true"),
});

/** The `kwargs` block of a run record: what the run was asked to do. */
export const RunKwargs = z.object({
  input: z.unknown(),
  command: z.unknown().nullable(),
  config: JsonObject,
  context: JsonObject.nullable(),
  webhook: z.string().nullable(),
  temporary: z.boolean(),
  stream_mode: z.array(z.string()),
  subgraphs: z.boolean(),
  resumable: z.boolean(),
  feedback_keys: z.array(z.string()).nullable(),
  interrupt_before: NodeList.nullable(),
  interrupt_after: NodeList.nullable(),
  checkpoint_id: z.string().nullable().optional(),
  checkpoint: JsonObject.nullable().optional(),
});
export type RunKwargs = z.infer<typeof RunKwargs>;

/** The Run resource. */
export const Run = z.object({
  run_id: z.string(),
  thread_id: z.string(),
  assistant_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  status: RunStatus,
  metadata: JsonObject,
  kwargs: RunKwargs,
  multitask_strategy: MultitaskStrategy,
});
export type Run = z.infer<typeof Run>;

/** `GET /threads/{thread_id}/runs` query. */
export const RunListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(10),
  offset: z.coerce.number().int().min(0).default(0),
  status: RunStatus.optional(),
  // The SDK sends the list as one JSON text (`select=["run_id","status"]`); a repeated
  // `select=run_id&select=status` is taken too.
  select: z
    .preprocess(
      (value) =>
        value === undefined
          ? undefined
          : [value].flat().flatMap((p) => (typeof p === "string" && p.startsWith("[") ? parseJsonOr(p) : p)),
      z.array(Run.keyof()),
    )
    .optional(),
});

/** Path parameters naming a run of a thread. */
export const RunParams = z.object({ thread_id: Uuid, run_id: Uuid });
