import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root directory. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/**
 * The first directory above `file` that other users cannot traverse (no o+x), or null. A checkout
 * under such a directory (root's 0700 home, say) cannot be run by workspace users without the
 * sandbox, which changes what the local runtime's isolation tests can check.
 */
export function closedAncestor(file: string): string | null {
  for (let current = path.dirname(file); current !== path.dirname(current); current = path.dirname(current)) {
    try {
      if ((fs.statSync(current).mode & 0o001) === 0) return current;
    } catch {
      return current;
    }
  }
  return null;
}
