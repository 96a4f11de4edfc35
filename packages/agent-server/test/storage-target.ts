// What the storage conformance suite runs against: an adapter that opens fresh, empty databases.
import type { StorageBackend } from "../src/storage/types.js";

/** One storage adapter under test. */
export interface StorageTarget {
  /** Adapter name in test titles. */
  name: string;
  /** Creates a fresh, empty database and returns the key that opens it. */
  fresh(): Promise<string>;
  /**
   * Opens database `key`. On a shared adapter (PostgreSQL) several may be open at once, like
   * several processes; on SQLite only after the previous one is closed.
   */
  open(key: string): Promise<StorageBackend>;
}

/** Opens a fresh database of `target` and closes it when the test ends. */
export async function freshBackend(
  target: StorageTarget,
  after: (fn: () => Promise<void>) => void,
): Promise<StorageBackend> {
  const backend = await target.open(await target.fresh());
  after(() => backend.storage.close());
  return backend;
}

/**
 * Two backends open at once on one fresh database of a shared adapter, as two processes would be;
 * both closed when the test ends.
 */
export async function twoProcesses(
  target: StorageTarget,
  after: (fn: () => Promise<void>) => void,
): Promise<{ a: StorageBackend; b: StorageBackend }> {
  const key = await target.fresh();
  const a = await target.open(key);
  const b = await target.open(key);
  after(async () => {
    await a.storage.close();
    await b.storage.close();
  });
  return { a, b };
}
