/**
 * A search's `select`: each row cut down to the named fields, in the order named (the official
 * server answers only those keys; a field the row lacks, such as a thread's `context`, is left
 * out). No `select`, or an empty one, keeps whole rows.
 */
export function selectFields<T extends object>(
  rows: readonly T[],
  select: readonly string[] | null | undefined,
): Array<T | Record<string, unknown>> {
  if (!select?.length) return [...rows];
  return rows.map((row) => {
    const fields = row as Record<string, unknown>;
    return Object.fromEntries(
      select.filter((field) => field in fields).map((field) => [field, fields[field]]),
    );
  });
}
