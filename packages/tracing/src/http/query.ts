import { z } from "zod";

/** A list in a query string: repeated (`?id=a&id=b`) or comma-separated (`?id=a,b`). */
export const CsvList = z.union([z.string(), z.array(z.string())]).transform((value) =>
  (Array.isArray(value) ? value : [value])
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== ""),
);

/** A UUID, lower-cased (ids are stored lower-case). */
export const Uuid = z.uuid().transform((id) => id.toLowerCase());
