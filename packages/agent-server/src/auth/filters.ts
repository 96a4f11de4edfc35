import type { AuthFilters } from "./types.js";

/** One filter as a JSON-containment pattern: `v` or `{$eq: v}` → v, `{$contains: v}` → [v]. */
function patternOf(filter: unknown): unknown {
  if (filter !== null && typeof filter === "object" && !Array.isArray(filter)) {
    const f = filter as Record<string, unknown>;
    if ("$contains" in f) return [f.$contains];
    if ("$eq" in f) return f.$eq;
  }
  return filter;
}

/** Auth filters as a metadata containment pattern (what searches match with). */
export function filtersToPattern(filters: AuthFilters): Record<string, unknown> {
  return Object.fromEntries(Object.entries(filters).map(([key, filter]) => [key, patternOf(filter)]));
}

/** Whether a resource's metadata satisfies every auth filter. */
export function matchesAuthFilters(metadata: Record<string, unknown>, filters: AuthFilters): boolean {
  return Object.entries(filters).every(([key, filter]) => {
    const pattern = patternOf(filter);
    const value = metadata[key];
    if (Array.isArray(pattern))
      return Array.isArray(value) && value.some((v) => JSON.stringify(v) === JSON.stringify(pattern[0]));
    return JSON.stringify(value) === JSON.stringify(pattern);
  });
}
