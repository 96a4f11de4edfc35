import { z } from "zod";
import { JsonObject } from "./common.js";

/** The Assistant resource. */
export const Assistant = z.object({
  assistant_id: z.string(),
  graph_id: z.string(),
  config: JsonObject,
  context: JsonObject,
  metadata: JsonObject,
  name: z.string(),
  description: z.string().nullable(),
  version: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Assistant = z.infer<typeof Assistant>;

/** Fields an assistant search may return (`select`). */
export const AssistantField = Assistant.keyof();

/** `POST /assistants/search`. */
export const AssistantSearch = z
  .object({
    metadata: JsonObject.nullish(),
    graph_id: z.string().nullish(),
    name: z.string().nullish(),
    limit: z.number().int().min(1).max(1000).default(10),
    offset: z.number().int().min(0).default(0),
    sort_by: z.enum(["assistant_id", "created_at", "updated_at", "name", "graph_id"]).nullish(),
    sort_order: z.enum(["asc", "desc"]).nullish(),
    select: z.array(AssistantField).nullish(),
  })
  .default({ limit: 10, offset: 0 });
export type AssistantSearch = z.infer<typeof AssistantSearch>;

/** `POST /assistants`. */
export const AssistantCreate = z.object({
  graph_id: z.string().min(1),
  assistant_id: z.uuid().nullish(),
  config: JsonObject.nullish(),
  context: JsonObject.nullish(),
  metadata: JsonObject.nullish(),
  if_exists: z.enum(["raise", "do_nothing"]).nullish(),
  name: z.string().max(1000).nullish(),
  description: z.string().max(10_000).nullish(),
});
export type AssistantCreate = z.infer<typeof AssistantCreate>;

/** `PATCH /assistants/{assistant_id}`: every patch makes a new version. */
export const AssistantPatch = AssistantCreate.omit({ assistant_id: true, if_exists: true }).partial();
export type AssistantPatch = z.infer<typeof AssistantPatch>;

/** `POST /assistants/count`. */
export const AssistantCount = z
  .object({ metadata: JsonObject.nullish(), graph_id: z.string().nullish(), name: z.string().nullish() })
  .default({});

/** `POST /assistants/{assistant_id}/versions`. */
export const AssistantVersionsQuery = z
  .object({
    metadata: JsonObject.nullish(),
    limit: z.number().int().min(1).max(1000).default(10),
    offset: z.number().int().min(0).default(0),
  })
  .default({ limit: 10, offset: 0 });

/** `POST /assistants/{assistant_id}/latest`: the SDK sends `{version}` in the body. */
export const AssistantLatest = z.object({ version: z.coerce.number().int().min(1) });

/** `GET /assistants/{assistant_id}/graph` query. */
export const AssistantGraphQuery = z.object({
  xray: z.union([z.enum(["true", "false"]), z.coerce.number().int().min(0)]).optional(),
});
