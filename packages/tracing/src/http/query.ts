import { z } from "zod";
import { filterProblem } from "../domain/metadata-filter.js";

/** A list in a query string: repeated (`?id=a&id=b`) or comma-separated (`?id=a,b`). */
export const CsvList = z.union([z.string(), z.array(z.string())]).transform((value) =>
  (Array.isArray(value) ? value : [value])
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== ""),
);

/** A UUID, lower-cased (ids are stored lower-case). */
export const Uuid = z.uuid().transform((id) => id.toLowerCase());

/** `limit` and `offset` of a LangSmith list. */
export const Page = {
  limit: z.coerce.number().int().min(1).max(100).default(100),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
};

/** A `metadata` filter: a JSON object that matching items' metadata must contain. */
export const JsonFilter = z
  .string()
  .max(10_000)
  .transform((text, ctx): Record<string, unknown> => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      ctx.addIssue({ code: "custom", message: "metadata must be a JSON object." });
      return z.NEVER;
    }
    const problem = filterProblem(value);
    if (problem) {
      ctx.addIssue({ code: "custom", message: problem });
      return z.NEVER;
    }
    return value as Record<string, unknown>;
  });

/** A dataset version in a query: a time (ISO 8601), a tag, or "latest". */
export const AsOf = z.string().min(1).max(200);
