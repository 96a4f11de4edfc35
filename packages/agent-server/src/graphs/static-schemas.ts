import type { GraphSchema, StaticSchemaExtractor } from "./schemas.js";

/**
 * The official JS server's TypeScript-type parser (`@langchain/langgraph-api/schema`): it reads a
 * graph module's state, input, output and config types (Annotation or plain TS types) and its
 * subgraphs' in a worker thread, so the schemas match the official server's exactly. Loaded on first
 * use: it pulls in the TypeScript compiler.
 */
export function officialStaticSchemas(timeoutMs: number): StaticSchemaExtractor {
  return async (spec) => {
    const { getStaticGraphSchema } = await import("@langchain/langgraph-api/schema");
    const result = await getStaticGraphSchema(
      { sourceFile: spec.modulePath, exportSymbol: spec.exportName },
      { timeoutMs },
    );
    return result as Record<string, GraphSchema>;
  };
}
