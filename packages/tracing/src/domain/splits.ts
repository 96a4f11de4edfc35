/**
 * Dataset splits as LangSmith keeps them: a list of names under the example's
 * `metadata.dataset_split`, `["base"]` when none was given (its examples carry that key; its API's
 * bulk metadata operations treat a missing list as the base split).
 */
export const SPLIT_KEY = "dataset_split";
export const BASE_SPLIT = "base";

/** Longest split name, metadata key and array value (LangSmith's bulk metadata limits). */
export const MAX_NAME_BYTES = 255;

/** A `split` as the SDK sends it (a name or a list of names) as a list without repeats. */
export function splitList(split: string | readonly string[]): string[] {
  return [...new Set(typeof split === "string" ? [split] : split)];
}

/** The example's splits: `metadata.dataset_split`, the base split when absent or not a list. */
export function splitsOf(metadata: Record<string, unknown> | null): string[] {
  const value = metadata?.[SPLIT_KEY];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  if (typeof value === "string") return [value];
  return [BASE_SPLIT];
}

/** Metadata with its splits set: `split` when given, else its own list, else the base split. */
export function withSplits(
  metadata: Record<string, unknown> | null | undefined,
  split?: string | readonly string[] | undefined,
): Record<string, unknown> {
  const out = { ...(metadata ?? {}) };
  out[SPLIT_KEY] = split !== undefined ? splitList(split) : splitsOf(metadata ?? null);
  return out;
}

/** One of LangSmith's bulk metadata operations (`PATCH …/examples/metadata`). */
export type MetadataOperation =
  | { operation: "SET"; key: string; value: unknown }
  | { operation: "ARRAY_ADD" | "ARRAY_REMOVE"; key: string; values: string[] };

/** `metadata` after `operations`, in order; array operations start a missing list empty (base for splits). */
export function applyOperations(
  metadata: Record<string, unknown> | null,
  operations: readonly MetadataOperation[],
): Record<string, unknown> {
  const out = { ...(metadata ?? {}) };
  for (const op of operations) {
    if (op.operation === "SET") {
      out[op.key] = op.value === undefined ? null : op.value;
      continue;
    }
    const current = out[op.key];
    const list = Array.isArray(current) ? [...current] : op.key === SPLIT_KEY ? splitsOf(out) : [];
    if (op.operation === "ARRAY_ADD") {
      for (const v of op.values) if (!list.includes(v)) list.push(v);
      out[op.key] = list;
    } else {
      out[op.key] = list.filter((v) => !op.values.includes(v as string));
    }
  }
  return out;
}
