import type { JsonObject } from "@berth-platform/schemas";

const OPERATORS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"]);

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length > 0 &&
    Object.keys(value).every((k) => OPERATORS.has(k))
  );
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function compare(actual: unknown, expected: unknown): boolean {
  if (isOperatorObject(expected)) {
    return Object.entries(expected).every(([op, operand]) => {
      switch (op) {
        case "$eq":
          return equal(actual, operand);
        case "$ne":
          return !equal(actual, operand);
        case "$gt":
          return Number(actual) > Number(operand);
        case "$gte":
          return Number(actual) >= Number(operand);
        case "$lt":
          return Number(actual) < Number(operand);
        case "$lte":
          return Number(actual) <= Number(operand);
        case "$in":
          return Array.isArray(operand) && operand.some((o) => equal(actual, o));
        default:
          return !Array.isArray(operand) || !operand.some((o) => equal(actual, o));
      }
    });
  }
  // A nested object filter matches field by field, as LangGraph's stores do.
  if (typeof expected === "object" && expected !== null && !Array.isArray(expected)) {
    if (typeof actual !== "object" || actual === null || Array.isArray(actual)) return false;
    return matchesFilter(actual as JsonObject, expected as JsonObject);
  }
  return equal(actual, expected);
}

/**
 * Whether an item's value matches a store search filter: every key must match, by equality or by
 * the operators LangGraph's stores accept ($eq, $ne, $gt, $gte, $lt, $lte, $in, $nin).
 */
export function matchesFilter(value: JsonObject, filter: JsonObject): boolean {
  return Object.entries(filter).every(([key, expected]) => compare(value[key], expected));
}

/** Whether `namespace` starts (prefix) or ends (suffix) with `path`; "*" matches any label. */
export function namespaceMatches(namespace: string[], path: string[], at: "prefix" | "suffix"): boolean {
  if (path.length > namespace.length) return false;
  const offset = at === "prefix" ? 0 : namespace.length - path.length;
  return path.every((label, i) => label === "*" || label === namespace[offset + i]);
}

/** The namespaces `listNamespaces` answers: matched, cut to `maxDepth`, distinct, sorted, paged. */
export function selectNamespaces(
  namespaces: string[][],
  query: {
    prefix: string[] | null;
    suffix: string[] | null;
    maxDepth: number | null;
    limit: number;
    offset: number;
  },
): string[][] {
  const kept = new Map<string, string[]>();
  for (const ns of namespaces) {
    if (query.prefix && !namespaceMatches(ns, query.prefix, "prefix")) continue;
    if (query.suffix && !namespaceMatches(ns, query.suffix, "suffix")) continue;
    const cut = query.maxDepth ? ns.slice(0, query.maxDepth) : ns;
    kept.set(JSON.stringify(cut), cut);
  }
  return [...kept.values()]
    .sort((a, b) => compareNamespaces(a, b))
    .slice(query.offset, query.offset + query.limit);
}

function compareNamespaces(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const x = a[i] ?? "";
    const y = b[i] ?? "";
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}
