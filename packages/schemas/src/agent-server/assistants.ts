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
  })
  .default({ limit: 10, offset: 0 });
export type AssistantSearch = z.infer<typeof AssistantSearch>;
