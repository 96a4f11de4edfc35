/** JSONB-style containment: every key/value of `pattern` is found (recursively) in `value`. */
export function containsJson(value: unknown, pattern: unknown): boolean {
  if (pattern === null || typeof pattern !== "object") return value === pattern;
  if (Array.isArray(pattern)) {
    return Array.isArray(value) && pattern.every((p) => value.some((v) => containsJson(v, p)));
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return Object.entries(pattern).every(([k, p]) => Object.hasOwn(record, k) && containsJson(record[k], p));
}

/** Parses a JSON text column (the adapters only ever write valid JSON there). */
export function parseJson<T>(text: string | null): T {
  return (text === null ? null : JSON.parse(text)) as T;
}
