import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root directory. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
