import { register as registerTsx } from "tsx/esm/api";
import { GraphLoadError, importGraphExport } from "./load.js";
import { readGraphProject, readProjectEnv } from "./project.js";
import { isCompiled, isUncompiled } from "./registry.js";
import { DiskSchemaCache, projectSchemaDir } from "./schema-cache.js";
import { GraphSchemaReader } from "./schemas.js";
import { isParseTimeout, officialParserVersion, officialStaticSchemas } from "./static-schemas.js";

/** One graph's result of a load check: null error when it loads. */
export interface GraphCheck {
  graphId: string;
  error: string | null;
}

/**
 * Imports every graph of a project as the server would (TypeScript through tsx, the project's
 * `env` added to `processEnv`) without starting anything, so a build can fail on a graph that
 * does not load instead of the deploy.
 */
export async function checkGraphProject(
  configPath: string,
  processEnv: Record<string, string | undefined>,
  /** Also parse the graphs' TypeScript types into the project's schema cache (a revision's build). */
  schemas?: { timeoutMs: number; onFailure(graphId: string, reason: string): void },
): Promise<GraphCheck[]> {
  const project = readGraphProject(configPath);
  for (const [key, value] of Object.entries(readProjectEnv(project))) {
    if (processEnv[key] === undefined) processEnv[key] = value;
  }
  const unregister = registerTsx();
  try {
    const results: GraphCheck[] = [];
    const loaded = new Map<string, unknown>();
    for (const spec of project.graphs) {
      try {
        const value = await importGraphExport(spec);
        const resolved = await value;
        loaded.set(spec.graphId, resolved);
        const usable = isCompiled(resolved) || isUncompiled(resolved) || typeof resolved === "function";
        results.push({
          graphId: spec.graphId,
          error: usable
            ? null
            : new GraphLoadError(
                spec,
                "the export is not a compiled graph, a StateGraph, or a function returning one of them",
              ).message,
        });
      } catch (error) {
        results.push({
          graphId: spec.graphId,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    if (schemas) {
      // The server started from this directory finds them (same files, same fingerprint).
      const reader = new GraphSchemaReader(
        officialStaticSchemas(schemas.timeoutMs),
        new DiskSchemaCache(
          projectSchemaDir(project.projectDir),
          undefined,
          project.projectDir,
          officialParserVersion(),
        ),
        isParseTimeout,
        schemas.onFailure,
      );
      const loads = project.graphs.filter((spec) =>
        results.some((r) => r.graphId === spec.graphId && !r.error),
      );
      await reader.warm(loads, (graphId) => {
        const graph = loaded.get(graphId);
        return isCompiled(graph) ? graph : undefined;
      });
    }
    return results;
  } finally {
    unregister();
  }
}
