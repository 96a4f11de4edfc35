import { z } from "zod";
import { JsonObject, MultitaskStrategy, StreamMode, Uuid, WebhookTarget } from "./common.js";

const NodeList = z.union([z.literal("*"), z.array(z.string())]);

/** Fields of a cron's run payload (what each execution is created with). */
const CronRunFields = {
  input: z.unknown().optional(),
  metadata: JsonObject.nullish(),
  config: JsonObject.nullish(),
  context: JsonObject.nullish(),
  webhook: WebhookTarget.nullish(),
  interrupt_before: NodeList.nullish(),
  interrupt_after: NodeList.nullish(),
  stream_mode: z.union([StreamMode, z.array(StreamMode)]).nullish(),
  stream_subgraphs: z.boolean().nullish(),
  stream_resumable: z.boolean().nullish(),
  durability: z.enum(["sync", "async", "exit"]).nullish(),
  checkpoint_during: z.boolean().nullish(),
};

/** `POST /runs/crons`: a schedule of runs, each on a new thread. */
export const CronCreate = z.object({
  assistant_id: z.string().min(1),
  schedule: z.string().min(1),
  timezone: z.string().min(1).nullish(),
  end_time: z.iso.datetime({ offset: true }).nullish(),
  enabled: z.boolean().nullish(),
  on_run_completed: z.enum(["delete", "keep"]).nullish(),
  ...CronRunFields,
});
export type CronCreate = z.infer<typeof CronCreate>;

/** `POST /threads/{thread_id}/runs/crons`: a schedule of runs on one thread. */
export const ThreadCronCreate = CronCreate.omit({ on_run_completed: true }).extend({
  multitask_strategy: MultitaskStrategy.nullish(),
});
export type ThreadCronCreate = z.infer<typeof ThreadCronCreate>;

/** `PATCH /runs/crons/{cron_id}`: every field optional; `end_time: null` clears it. */
export const CronPatch = z.object({
  schedule: z.string().min(1).optional(),
  timezone: z.string().min(1).optional(),
  end_time: z.iso.datetime({ offset: true }).nullable().optional(),
  enabled: z.boolean().optional(),
  on_run_completed: z.enum(["delete", "keep"]).optional(),
  ...CronRunFields,
});
export type CronPatch = z.infer<typeof CronPatch>;

const CronSort = z.enum([
  "cron_id",
  "assistant_id",
  "thread_id",
  "next_run_date",
  "end_time",
  "created_at",
  "updated_at",
]);

/** Fields a cron search may return (`select`). */
export const CronField = z.enum([
  "cron_id",
  "assistant_id",
  "thread_id",
  "end_time",
  "schedule",
  "timezone",
  "created_at",
  "updated_at",
  "user_id",
  "payload",
  "next_run_date",
  "metadata",
  "enabled",
  "on_run_completed",
]);

/** `POST /runs/crons/search`. */
export const CronSearch = z
  .object({
    assistant_id: z.string().nullish(),
    thread_id: Uuid.nullish(),
    enabled: z.boolean().nullish(),
    metadata: JsonObject.nullish(),
    limit: z.number().int().min(1).max(1000).default(10),
    offset: z.number().int().min(0).default(0),
    sort_by: CronSort.nullish(),
    sort_order: z.enum(["asc", "desc"]).nullish(),
    select: z.array(CronField).nullish(),
  })
  .default({ limit: 10, offset: 0 });
export type CronSearch = z.infer<typeof CronSearch>;

/** `POST /runs/crons/count`. */
export const CronCount = z
  .object({
    assistant_id: z.string().nullish(),
    thread_id: Uuid.nullish(),
    enabled: z.boolean().nullish(),
    metadata: JsonObject.nullish(),
  })
  .default({});
export type CronCount = z.infer<typeof CronCount>;

/** Path parameters naming a cron. */
export const CronParams = z.object({ cron_id: Uuid });

/** The Cron resource. */
export const Cron = z.object({
  cron_id: z.string(),
  assistant_id: z.string(),
  thread_id: z.string().nullable(),
  end_time: z.string().nullable(),
  schedule: z.string(),
  timezone: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  user_id: z.string().nullable(),
  payload: JsonObject,
  next_run_date: z.string().nullable(),
  metadata: JsonObject,
  enabled: z.boolean(),
  on_run_completed: z.enum(["delete", "keep"]).nullable(),
});
export type Cron = z.infer<typeof Cron>;
