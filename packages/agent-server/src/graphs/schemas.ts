import { importAsProject } from "./project-modules.js";
import type { GraphSpec } from "./spec.js";

/** The JSON schemas of a graph, as `/assistants/{id}/schemas` returns them. */
export interface GraphSchemas {
  graph_id: string;
  input_schema: unknown;
  output_schema: unknown;
  state_schema: unknown;
  config_schema: unknown;
  context_schema: unknown;
}

/** One graph's schemas before they are put on the wire (the official parser's shape). */
export interface GraphSchema {
  state: unknown;
  input: unknown;
  output: unknown;
  config: unknown;
}

/** Schemas of a graph module read from its TypeScript types, by graph name (`root`, `root|node`...). */
export type StaticSchemaExtractor = (spec: GraphSpec) => Promise<Record<string, GraphSchema>>;

type Fn = (...args: unknown[]) => unknown;

interface Builder {
  _schemaRuntimeDefinition?: unknown;
  _inputRuntimeDefinition?: unknown;
  _outputRuntimeDefinition?: unknown;
  _configRuntimeSchema?: unknown;
}

/** A state schema of LangGraph's own `StateSchema` kind (duck-typed: any copy of LangGraph). */
interface StateSchemaLike {
  getJsonSchema(): unknown;
  getInputJsonSchema(): unknown;
}

const PARTIAL_STATE = Symbol.for("langgraph.state.partial");

function isStateSchemaLike(value: unknown): value is StateSchemaLike {
  const v = value as Record<string, unknown> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.getJsonSchema === "function" &&
    typeof v.getInputJsonSchema === "function"
  );
}

function builderOf(graph: unknown): Builder | undefined {
  const builder = (graph as { builder?: unknown } | null)?.builder;
  return typeof builder === "object" && builder !== null ? (builder as Builder) : undefined;
}

const empty = (s: GraphSchema) => Object.values(s).every((v) => v === undefined || v === null);

/** Tier 1: LangGraph's `StateSchema`, which renders its own JSON schema. */
function fromStateSchema(builder: Builder): GraphSchema | undefined {
  const { _schemaRuntimeDefinition: state, _inputRuntimeDefinition: input } = builder;
  const output = builder._outputRuntimeDefinition;
  if (!isStateSchemaLike(state) && !isStateSchemaLike(input) && !isStateSchemaLike(output)) return undefined;
  const result: GraphSchema = {
    state: isStateSchemaLike(state) ? state.getJsonSchema() : undefined,
    input: isStateSchemaLike(input)
      ? input.getInputJsonSchema()
      : input === PARTIAL_STATE && isStateSchemaLike(state)
        ? state.getInputJsonSchema()
        : undefined,
    output: isStateSchemaLike(output) ? output.getJsonSchema() : undefined,
    config: undefined,
  };
  return empty(result) ? undefined : result;
}

/**
 * Tier 2: zod state through LangGraph's schema helpers, taken from the project's own copy of
 * `@langchain/langgraph`: `withLangGraph` metadata (reducers, `langgraph_type`) lives in a registry
 * per copy, so Berth's copy would not see what the project's graph registered (issue 10, defect 1).
 */
async function fromZodRegistry(graph: unknown, modulePath: string): Promise<GraphSchema | undefined> {
  try {
    const mod = await importAsProject(modulePath, "@langchain/langgraph", "zod/schema");
    const call = (name: string) => (mod[name] as Fn | undefined)?.(graph);
    const result: GraphSchema = {
      // The official server reports the update schema (reducer input types) as the state schema.
      state: call("getUpdateTypeSchema"),
      input: call("getInputTypeSchema"),
      output: call("getOutputTypeSchema"),
      config: call("getConfigTypeSchema"),
    };
    return empty(result) ? undefined : result;
  } catch {
    return undefined;
  }
}

/** Tier 3: plain zod schemas converted without the registry (no LangGraph extras). */
async function fromZodDirect(builder: Builder, modulePath: string): Promise<GraphSchema | undefined> {
  try {
    const jsonSchema = await importAsProject(modulePath, "@langchain/core", "utils/json_schema");
    const types = await importAsProject(modulePath, "@langchain/core", "utils/types");
    const toJsonSchema = jsonSchema.toJsonSchema as Fn;
    const isZod = (s: unknown) =>
      Boolean((types.isZodSchemaV4 as Fn | undefined)?.(s) || (types.isZodSchemaV3 as Fn | undefined)?.(s));
    const convert = (s: unknown) => {
      if (!s || !isZod(s)) return undefined;
      try {
        return toJsonSchema(s);
      } catch {
        return undefined;
      }
    };
    const state = convert(builder._schemaRuntimeDefinition) as Record<string, unknown> | undefined;
    const result: GraphSchema = {
      state,
      input:
        convert(builder._inputRuntimeDefinition) ?? (state ? { ...state, required: undefined } : undefined),
      output: convert(builder._outputRuntimeDefinition),
      config: convert(builder._configRuntimeSchema),
    };
    return empty(result) ? undefined : result;
  } catch {
    return undefined;
  }
}

/**
 * The schemas a graph object describes at run time, in the official JS server's order: LangGraph's
 * `StateSchema`, then zod with the project copy's metadata registry, then plain zod. Undefined for
 * `Annotation` graphs, whose schemas only their TypeScript types hold.
 */
export async function runtimeGraphSchema(
  graph: unknown,
  modulePath: string,
): Promise<GraphSchema | undefined> {
  const builder = builderOf(graph);
  if (!builder) return undefined;
  return (
    fromStateSchema(builder) ??
    (await fromZodRegistry(graph, modulePath)) ??
    (await fromZodDirect(builder, modulePath))
  );
}

/** The schema naming the state channels: all that is known when nothing else could be read. */
function channelSchema(graph: unknown): GraphSchema {
  const channels = Object.keys((graph as { channels?: Record<string, unknown> }).channels ?? {}).filter(
    (name) => !name.startsWith("__") && !name.includes(":"),
  );
  const schema = { type: "object", properties: Object.fromEntries(channels.map((name) => [name, {}])) };
  return { state: schema, input: schema, output: schema, config: undefined };
}

/**
 * Reads graph schemas: at run time when the graph carries them (zod, StateSchema), otherwise from the
 * module's TypeScript types through the official parser, once per graph (it costs seconds), cached
 * (a failure is logged and not kept).
 */
export class GraphSchemaReader {
  private readonly staticSchemas = new Map<string, Promise<Record<string, GraphSchema> | undefined>>();

  constructor(
    private readonly extractStatic: StaticSchemaExtractor,
    private readonly onStaticError: (graphId: string, error: unknown) => void = () => {},
  ) {}

  /** Schemas of a graph of the project (`/assistants/{id}/schemas`). */
  async schemas(spec: GraphSpec, graph: unknown): Promise<GraphSchemas> {
    const schema =
      (await runtimeGraphSchema(graph, spec.modulePath)) ??
      (await this.staticSchema(spec, undefined)) ??
      channelSchema(graph);
    return wire(spec.graphId, schema);
  }

  /** Schemas of a subgraph at namespace `ns` of a graph (`/assistants/{id}/subgraphs`). */
  async subgraphSchemas(
    spec: GraphSpec,
    ns: string,
    subgraph: unknown,
  ): Promise<Omit<GraphSchemas, "graph_id">> {
    const schema =
      (await runtimeGraphSchema(subgraph, spec.modulePath)) ??
      (await this.staticSchema(spec, ns)) ??
      channelSchema(subgraph);
    const { graph_id: _omitted, ...rest } = wire(spec.graphId, schema);
    return rest;
  }

  /** The parser's schema for the root graph, or for a subgraph namespace (the root's when unknown). */
  private async staticSchema(spec: GraphSpec, ns: string | undefined): Promise<GraphSchema | undefined> {
    let pending = this.staticSchemas.get(spec.graphId);
    if (!pending) {
      pending = this.extractStatic(spec).catch((error: unknown) => {
        // Not kept: a parse that timed out on a busy machine is tried again on the next request.
        this.staticSchemas.delete(spec.graphId);
        this.onStaticError(spec.graphId, error);
        return undefined;
      });
      this.staticSchemas.set(spec.graphId, pending);
    }
    const all = await pending;
    if (!all) return undefined;
    const root = Object.keys(all).find((name) => !name.includes("|"));
    if (root === undefined) return undefined;
    return (ns !== undefined ? all[`${root}|${ns}`] : undefined) ?? all[root];
  }
}

/** The wire shape; a schema that could not be read is left out, as the official JS server does. */
function wire(graphId: string, schema: GraphSchema): GraphSchemas {
  return {
    graph_id: graphId,
    input_schema: schema.input,
    output_schema: schema.output,
    state_schema: schema.state,
    config_schema: schema.config,
    // From JavaScript, config and context schemas cannot be told apart: the official JS server
    // reports the config schema for both.
    context_schema: schema.config,
  };
}
