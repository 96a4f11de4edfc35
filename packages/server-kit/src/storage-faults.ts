/**
 * What a storage error says about the store rather than the request: `unavailable` (the database
 * is restarting, failing over or unreachable: retry shortly) or `full` (the disk or the database
 * has no room left). Null for everything else. Both servers answer these 503 / 507 instead of 500.
 */
export type StorageFault = "unavailable" | "full";

/** PostgreSQL's connection classes (08…), "shutting down / cannot connect now" (57P01–03). */
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "57P01",
  "57P02",
  "57P03",
]);

/** SQLite's and PostgreSQL's "no room" codes, and the file system's. */
const FULL_CODES = new Set(["SQLITE_FULL", "ENOSPC", "EDQUOT", "53100"]);

/** Classifies an error thrown by a storage adapter (better-sqlite3, pg) or the file system. */
export function storageFault(error: unknown): StorageFault | null {
  if (typeof error !== "object" || error === null) return null;
  const code = String((error as { code?: unknown }).code ?? "");
  const message = String((error as { message?: unknown }).message ?? "");
  if (FULL_CODES.has(code) || /database or disk is full|No space left on device/i.test(message))
    return "full";
  if (
    UNAVAILABLE_CODES.has(code) ||
    code.startsWith("08") ||
    /Connection terminated|terminating connection due to administrator command|the database system is (starting up|shutting down)/i.test(
      message,
    )
  )
    return "unavailable";
  return null;
}
