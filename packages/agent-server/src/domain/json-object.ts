import type { JsonObject } from "@berth-platform/schemas";

/** `value` when it is a JSON object, else `{}` (a missing or malformed config part reads as empty). */
export function asObject(value: unknown): JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as JsonObject) : {};
}
