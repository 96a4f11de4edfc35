import {
  getConfigTypeSchema,
  getInputTypeSchema,
  getOutputTypeSchema,
  getStateTypeSchema,
} from "@langchain/langgraph/zod/schema";
import type { RunnableGraph } from "./registry.js";

/** The JSON schemas of a graph, as `/assistants/{id}/schemas` returns them. */
export interface GraphSchemas {
  graph_id: string;
  input_schema: unknown;
  output_schema: unknown;
  state_schema: unknown;
  config_schema: unknown;
  context_schema: unknown;
}

type SchemaGraph = Parameters<typeof getStateTypeSchema>[0];

/**
 * Schemas from the graph's zod state definition when it has one; otherwise (Annotation graphs) an
 * object schema naming the state channels, which is all that is known at run time.
 */
export function graphSchemas(graphId: string, graph: RunnableGraph): GraphSchemas {
  const g = graph as unknown as SchemaGraph;
  const fromZod = (get: (g: SchemaGraph) => unknown) => {
    try {
      return get(g) ?? undefined;
    } catch {
      return undefined;
    }
  };
  const channels = Object.keys(
    (graph as unknown as { channels?: Record<string, unknown> }).channels ?? {},
  ).filter((name) => !name.startsWith("__") && !name.includes(":"));
  const fallback = {
    type: "object",
    properties: Object.fromEntries(channels.map((name) => [name, {}])),
  };
  const config = fromZod(getConfigTypeSchema) ?? null;
  return {
    graph_id: graphId,
    input_schema: fromZod(getInputTypeSchema) ?? fallback,
    output_schema: fromZod(getOutputTypeSchema) ?? fallback,
    state_schema: fromZod(getStateTypeSchema) ?? fallback,
    config_schema: config,
    context_schema: config,
  };
}
