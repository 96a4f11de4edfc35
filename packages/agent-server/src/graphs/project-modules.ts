import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Which module system loads a file, as Node (and tsx) decide it: `.mts/.mjs` are ES modules,
 * `.cts/.cjs` CommonJS, and `.ts/.js` follow the nearest package.json's `"type"`.
 */
export function moduleSystemOf(file: string): "esm" | "cjs" {
  if (/\.m[jt]sx?$/.test(file)) return "esm";
  if (/\.c[jt]sx?$/.test(file)) return "cjs";
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (fs.existsSync(manifest)) {
      try {
        return (JSON.parse(fs.readFileSync(manifest, "utf8")) as { type?: unknown }).type === "module"
          ? "esm"
          : "cjs";
      } catch {
        return "cjs";
      }
    }
    if (path.dirname(dir) === dir) return "cjs";
  }
}

/** The file an `exports` entry names for a condition set (import or require), or undefined. */
function exportTarget(entry: unknown, conditions: readonly string[]): string | undefined {
  if (typeof entry === "string") return entry;
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return undefined;
  for (const [condition, value] of Object.entries(entry as Record<string, unknown>)) {
    if (condition === "default" || conditions.includes(condition)) {
      const found = exportTarget(value, conditions);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * Imports `specifier` (`pkg/subpath`) as the graph module at `fromFile` sees it: the copy installed
 * beside the project (not Berth's), and the same build (ESM or CommonJS) the graph's own imports got,
 * since each build of a package holds its own module-level registries.
 */
export async function importAsProject(
  fromFile: string,
  pkg: string,
  subpath: string,
  system: "esm" | "cjs" = moduleSystemOf(fromFile),
): Promise<Record<string, unknown>> {
  const require = createRequire(fromFile);
  const specifier = subpath === "." ? pkg : `${pkg}/${subpath.replace(/^\.\//, "")}`;
  if (system === "cjs") return require(specifier) as Record<string, unknown>;
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8")) as {
    exports?: Record<string, unknown>;
    module?: string;
    main?: string;
  };
  const key = subpath === "." ? "." : `./${subpath.replace(/^\.\//, "")}`;
  const target = exportTarget(manifest.exports?.[key], ["node", "import"]);
  if (target === undefined) throw new Error(`${pkg} exports no "${key}" for import`);
  return (await import(pathToFileURL(path.join(path.dirname(manifestPath), target)).href)) as Record<
    string,
    unknown
  >;
}
