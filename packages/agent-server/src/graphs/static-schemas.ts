import { createRequire } from "node:module";
import type { GraphSchema, StaticSchemaExtractor } from "./schemas.js";

/**
 * The official JS server's TypeScript-type parser (`@langchain/langgraph-api/schema`): it reads a
 * graph module's state, input, output and config types (Annotation or plain TS types) and its
 * subgraphs' in a worker thread, so the schemas match the official server's exactly. Several graphs
 * are parsed in one worker (one TypeScript program: the compiler and the libraries' types are read
 * once). Loaded on first use: it pulls in the TypeScript compiler.
 */
export function officialStaticSchemas(timeoutMs: number): StaticSchemaExtractor {
  return async (specs) => {
    const { getStaticGraphSchema } = await import("@langchain/langgraph-api/schema");
    const result = await getStaticGraphSchema(
      Object.fromEntries(
        specs.map((spec) => [spec.graphId, { sourceFile: spec.modulePath, exportSymbol: spec.exportName }]),
      ),
      { timeoutMs },
    );
    return result as Record<string, Record<string, GraphSchema>>;
  };
}

/** The parser's identity, part of the schema cache's key: another version may read types differently. */
export function officialParserVersion(): string {
  try {
    const version = (
      createRequire(import.meta.url)("@langchain/langgraph-api/package.json") as { version: string }
    ).version;
    return `@langchain/langgraph-api@${version}`;
  } catch {
    return "@langchain/langgraph-api@unknown";
  }
}

/** Whether a parse failed for lack of time (the parser's worker timed out), not because of the files. */
export function isParseTimeout(error: unknown): boolean {
  return error instanceof Error && /timed out/i.test(error.message);
}
