import { z } from "zod";
import { JsonObject } from "./common.js";

/** One namespace label: non-empty, without "." (the SDK joins namespaces with dots). */
export const NamespaceLabel = z
  .string()
  .min(1, { message: "Namespace labels cannot be empty" })
  .refine((label) => !label.includes("."), { message: "Namespace labels cannot contain periods ('.')" });

/** A namespace: a path of labels. */
export const Namespace = z.array(NamespaceLabel);

/** `PUT /store/items`. `index` is accepted; semantic indexing is not supported (docs/decisions.md). */
export const StorePut = z.object({
  namespace: Namespace.min(1, { message: "Namespace cannot be empty" }),
  key: z.string().min(1),
  value: JsonObject,
  index: z.union([z.literal(false), z.array(z.string()), z.null()]).optional(),
  ttl: z.number().positive().nullish(),
});
export type StorePut = z.infer<typeof StorePut>;

const BooleanQuery = z
  .union([z.boolean(), z.enum(["0", "1", "true", "false", "True", "False"])])
  .optional()
  .transform((v) =>
    v === undefined ? undefined : v === true || v === "1" || v.toString() === "true" || v === "True",
  );

/** `GET /store/items` query: the namespace arrives dot-joined. */
export const StoreGetQuery = z.object({
  namespace: z
    .string()
    .optional()
    .transform((ns) => (ns ? ns.split(".") : []))
    .pipe(Namespace),
  key: z.string().min(1),
  refresh_ttl: BooleanQuery,
});

/** `DELETE /store/items`. */
export const StoreDelete = z.object({ namespace: Namespace, key: z.string().min(1) });

/** `POST /store/items/search`. `query` needs semantic indexing, which is not supported: it is ignored. */
export const StoreSearch = z
  .object({
    namespace_prefix: Namespace.nullish(),
    filter: JsonObject.nullish(),
    limit: z.number().int().min(1).max(1000).default(10),
    offset: z.number().int().min(0).default(0),
    query: z.string().nullish(),
    refresh_ttl: z.boolean().nullish(),
  })
  .default({ limit: 10, offset: 0 });
export type StoreSearch = z.infer<typeof StoreSearch>;

/** `POST /store/namespaces`. */
export const StoreListNamespaces = z
  .object({
    prefix: z.array(z.string()).nullish(),
    suffix: z.array(z.string()).nullish(),
    max_depth: z.number().int().min(1).nullish(),
    limit: z.number().int().min(1).max(1000).default(100),
    offset: z.number().int().min(0).default(0),
  })
  .default({ limit: 100, offset: 0 });
export type StoreListNamespaces = z.infer<typeof StoreListNamespaces>;

/** An item of the store as the API returns it. */
export const StoreItem = z.object({
  namespace: z.array(z.string()),
  key: z.string(),
  value: JsonObject,
  created_at: z.string(),
  updated_at: z.string(),
});
export type StoreItem = z.infer<typeof StoreItem>;
