import { z } from "zod";
import { JsonObject, ThreadStatus, Uuid } from "./common.js";
import { RunCommand } from "./runs.js";

/** One superstep of `POST /threads`' `supersteps`: updates applied together, each as a node. */
export const Superstep = z.object({
  updates: z
    .array(
      z.object({
        values: z.unknown().optional(),
        command: RunCommand.nullish(),
        as_node: z.string(),
      }),
    )
    .min(1),
});
export type Superstep = z.infer<typeof Superstep>;

/** `POST /threads`: every field optional, an empty body is allowed. */
export const ThreadCreate = z
  .object({
    thread_id: Uuid.optional(),
    metadata: JsonObject.nullish(),
    if_exists: z.enum(["raise", "do_nothing"]).default("raise"),
    /** A history to build, superstep by superstep, with the thread's graph (`metadata.graph_id`). */
    supersteps: z.array(Superstep).nullish(),
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

const ThreadSort = z.enum(["thread_id", "status", "created_at", "updated_at", "state_updated_at"]);

/** `POST /threads/search`. */
/** Fields a thread search may return (`select`): the SDK's ThreadSelectField. */
export const ThreadField = z.enum([
  "thread_id",
  "created_at",
  "updated_at",
  "state_updated_at",
  "metadata",
  "config",
  "context",
  "status",
  "values",
  "interrupts",
]);

export const ThreadSearch = z
  .object({
    ids: z.array(Uuid).max(1000).nullish(),
    metadata: JsonObject.nullish(),
    values: JsonObject.nullish(),
    status: ThreadStatus.nullish(),
    limit: z.number().int().min(1).max(1000).default(10),
    offset: z.number().int().min(0).default(0),
    sort_by: ThreadSort.nullish(),
    sort_order: z.enum(["asc", "desc"]).nullish(),
    select: z.array(ThreadField).nullish(),
  })
  .default({ limit: 10, offset: 0 });
export type ThreadSearch = z.infer<typeof ThreadSearch>;

/** `POST /threads/count`. */
export const ThreadCount = z
  .object({ metadata: JsonObject.nullish(), values: JsonObject.nullish(), status: ThreadStatus.nullish() })
  .default({});
export type ThreadCount = z.infer<typeof ThreadCount>;

/** `PATCH /threads/{thread_id}`: metadata is merged into the thread's. */
export const ThreadPatch = z.object({ metadata: JsonObject.nullish() });

const CheckpointFields = z.object({
  thread_id: z.string().nullish(),
  checkpoint_ns: z.string().nullish(),
  checkpoint_id: z.string().nullish(),
  checkpoint_map: JsonObject.nullish(),
});

/**
 * A checkpoint named by id (and namespace). The SDK sends it either flat or as a config
 * (`{configurable: {checkpoint_id}}`, e.g. history's `before`): both become the flat form.
 */
export const CheckpointRef = CheckpointFields.extend({ configurable: CheckpointFields.nullish() }).transform(
  ({ configurable, ...flat }) => ({ ...flat, ...(configurable ?? {}) }),
);

/** `POST /threads/{thread_id}/state`: write values as if a node had returned them. */
export const ThreadStateUpdate = z.object({
  values: z.union([JsonObject, z.array(z.unknown()), z.null()]).optional(),
  as_node: z.string().nullish(),
  checkpoint_id: z.string().nullish(),
  checkpoint: CheckpointRef.nullish(),
});

/** `GET /threads/{thread_id}/state[/{checkpoint_id}]` query: `subgraphs` nests subgraph states. */
export const ThreadStateQuery = z.object({
  subgraphs: z
    .union([z.boolean(), z.enum(["0", "1", "true", "false"])])
    .optional()
    .transform((v) => v === true || v === "1" || v === "true"),
});

/** `POST /threads/{thread_id}/state/checkpoint`. */
export const ThreadStateAtCheckpoint = z.object({
  checkpoint: CheckpointRef,
  subgraphs: z.boolean().nullish(),
});

/** `GET /threads/{thread_id}/history` query. */
export const ThreadHistoryQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(10),
  before: z.string().optional(),
});

/** `POST /threads/{thread_id}/history` body. */
export const ThreadHistoryBody = z
  .object({
    limit: z.number().int().min(1).max(1000).default(10),
    before: z.union([z.string(), CheckpointRef]).nullish(),
    metadata: JsonObject.nullish(),
    checkpoint: CheckpointRef.nullish(),
  })
  .default({ limit: 10 });

/** Path parameters naming a checkpoint of a thread. */
export const ThreadCheckpointParams = z.object({ thread_id: Uuid, checkpoint_id: z.string().min(1) });
