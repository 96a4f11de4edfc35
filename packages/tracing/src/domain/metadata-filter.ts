/**
 * Why `value` cannot be a metadata containment filter, or null: keys holding '"' or '\\' (SQLite
 * JSON paths quote keys), or nesting deeper than a filter needs.
 */
export function filterProblem(value: unknown, depth = 0): string | null {
  if (depth > 20) return "The metadata filter nests too deeply.";
  if (Array.isArray(value)) {
    for (const element of value) {
      const problem = filterProblem(element, depth + 1);
      if (problem) return problem;
    }
  } else if (typeof value === "object" && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (/["\\]/.test(key)) return `Metadata filter keys may not contain '"' or '\\' (${key.slice(0, 50)}).`;
      const problem = filterProblem(inner, depth + 1);
      if (problem) return problem;
    }
  }
  return null;
}
