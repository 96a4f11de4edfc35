import fs from "node:fs";
import { pathToFileURL } from "node:url";
import { importFailureReason, missingModuleReason, projectRelative } from "./load-errors.js";
import type { GraphSpec } from "./spec.js";

/** A module export the loader could not use, with the reason in words. */
export class GraphLoadError extends Error {
  constructor(spec: GraphSpec, reason: string) {
    super(`Cannot load graph "${spec.graphId}" from ${projectRelative(spec, spec.modulePath)}: ${reason}`);
    this.name = "GraphLoadError";
  }
}

/**
 * Imports a graph's module and returns the named export. TypeScript modules need the tsx ESM hook,
 * which the composition root registers once before loading.
 */
export async function importGraphExport(spec: GraphSpec): Promise<unknown> {
  if (!fs.existsSync(spec.modulePath)) throw new GraphLoadError(spec, missingModuleReason(spec));
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(spec.modulePath).href)) as Record<string, unknown>;
  } catch (error) {
    throw new GraphLoadError(spec, `importing it failed: ${importFailureReason(spec, error)}`);
  }
  // A CommonJS module (a `"type": "commonjs"` project) comes back as `{ default: module.exports }`
  // when Node cannot see its named exports statically: look the export up there too.
  const cjsExports = mod.default as Record<string, unknown> | null | undefined;
  if (mod[spec.exportName] === undefined && typeof cjsExports === "object" && cjsExports !== null) {
    if (cjsExports[spec.exportName] !== undefined) return cjsExports[spec.exportName];
  }
  if (!(spec.exportName in mod) || mod[spec.exportName] === undefined) {
    const available = Object.keys(mod).join(", ") || "none";
    throw new GraphLoadError(spec, `it has no export "${spec.exportName}" (exports: ${available})`);
  }
  return mod[spec.exportName];
}
