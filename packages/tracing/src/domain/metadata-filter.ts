/** Most values (keys and elements) in a metadata filter: each is a condition (SQLite nests them). */
const MAX_NODES = 200;
const MAX_DEPTH = 20;

/**
 * Why `value` cannot be a metadata containment filter, or null: keys holding '"' or '\\' (SQLite
 * JSON paths quote keys), more values or deeper nesting than a filter needs (SQLite caps an
 * expression's depth).
 */
export function filterProblem(value: unknown): string | null {
  let nodes = 0;
  const walk = (v: unknown, depth: number): string | null => {
    if (typeof v === "string" && v.includes("\u0000")) return NUL_MESSAGE;
    if (++nodes > MAX_NODES) return `A metadata filter holds at most ${MAX_NODES} values.`;
    if (depth > MAX_DEPTH) return "The metadata filter nests too deeply.";
    if (Array.isArray(v)) {
      for (const element of v) {
        const problem = walk(element, depth + 1);
        if (problem) return problem;
      }
    } else if (typeof v === "object" && v !== null) {
      for (const [key, inner] of Object.entries(v)) {
        if (key.includes("\u0000")) return NUL_MESSAGE;
        if (/["\\]/.test(key))
          return `Metadata filter keys may not contain '"' or '\\' (${key.slice(0, 50)}).`;
        const problem = walk(inner, depth + 1);
        if (problem) return problem;
      }
    }
    return null;
  };
  return walk(value, 0);
}

/** PostgreSQL's jsonb, which metadata filters read, cannot hold U+0000 (even escaped in JSON). */
export const NUL_MESSAGE = "Metadata must not contain NUL characters (\\u0000).";

/** Whether a key or string anywhere in `value` holds U+0000 (metadata refuses it on write). */
export function holdsNul(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (Array.isArray(value)) return value.some(holdsNul);
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).some(([k, v]) => k.includes("\u0000") || holdsNul(v));
  }
  return false;
}
