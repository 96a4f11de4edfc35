import { importAsProject } from "./project-modules.js";
import type { StaticSchemaCache, StaticSchemaResult } from "./schema-cache.js";
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

/**
 * Schemas of graph modules read from their TypeScript types: per graph id, by graph name (`root`,
 * `root|node`...). Several graphs in one call share the parse.
 */
export type StaticSchemaExtractor = (
  specs: GraphSpec[],
) => Promise<Record<string, Record<string, GraphSchema>>>;

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
 * module's TypeScript types through the official parser, which costs seconds. So that no client
 * waits for it, `warm` parses the graphs that need it in the background at start-up (all in one
 * parse), and results, failures with their reason included, are kept in the cache (on disk, keyed
 * by the project's files); a request during the parse waits for that parse, never for another.
 */
export class GraphSchemaReader {
  private readonly pending = new Map<string, Promise<StaticSchemaResult>>();
  private readonly byGraph = new WeakMap<object, Promise<GraphSchemas>>();
  /** While `warm` sorts out which graphs it parses (resolved once their parses are registered). */
  private registering: Promise<void> | undefined;

  constructor(
    private readonly extractStatic: StaticSchemaExtractor,
    private readonly cache: StaticSchemaCache,
    private readonly isTransient: (error: unknown) => boolean,
    private readonly onStaticError: (graphId: string, reason: string) => void = () => {},
  ) {}

  /**
   * Schemas of a graph of the project (`/assistants/{id}/schemas`). Kept per graph object: an
   * exported graph is one object for the server's life, so its schemas are worked out once (a
   * factory makes a new graph per call, which is read again).
   */
  schemas(spec: GraphSpec, graph: unknown): Promise<GraphSchemas> {
    const key = typeof graph === "object" && graph !== null ? graph : undefined;
    const known = key && this.byGraph.get(key);
    if (known) return known;
    const read = (async () => {
      const schema =
        (await runtimeGraphSchema(graph, spec.modulePath)) ??
        (await this.staticSchema(spec, undefined)) ??
        channelSchema(graph);
      return wire(spec.graphId, schema);
    })();
    if (key) this.byGraph.set(key, read);
    return read;
  }

  /**
   * Schemas of a subgraph at namespace `ns` of a graph (`/assistants/{id}/subgraphs`): the official
   * JS server answers the parser's own entry (`state`, `input`, `output`, `config`); the SDK's
   * `Subgraphs` type and the production server name them `state_schema`... Both are given, so
   * clients of either find theirs.
   */
  async subgraphSchemas(
    spec: GraphSpec,
    ns: string,
    subgraph: unknown,
  ): Promise<GraphSchema & Omit<GraphSchemas, "graph_id">> {
    const schema =
      (await runtimeGraphSchema(subgraph, spec.modulePath)) ??
      (await this.staticSchema(spec, ns)) ??
      channelSchema(subgraph);
    const { graph_id: _omitted, ...named } = wire(spec.graphId, schema);
    return { ...schema, ...named };
  }

  /**
   * Parses, in one go, the graphs whose schemas only their TypeScript types hold (
   * `graphOf` gives the loaded graph; undefined for a factory, whose types are parsed anyway) and that the cache does not
   * know. Resolves when they are ready; never rejects.
   */
  async warm(specs: readonly GraphSpec[], graphOf: (graphId: string) => unknown): Promise<void> {
    // A request that comes while the graphs are sorted out waits for that, then shares the parse.
    let registered = () => {};
    this.registering = new Promise<void>((resolve) => {
      registered = resolve;
    });
    try {
      const needed: GraphSpec[] = [];
      for (const spec of specs) {
        if (this.pending.has(spec.graphId) || this.cache.get(spec)) continue;
        const graph = graphOf(spec.graphId);
        if (graph !== undefined && (await runtimeGraphSchema(graph, spec.modulePath))) continue;
        needed.push(spec);
      }
      if (needed.length === 0) return;
      const batch = this.extractStatic(needed).then(
        (all) => ({ ok: true as const, all }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      // When the batch fails (one module's types may break the program), each graph is parsed on
      // its own, one after the other (a parse takes a core).
      let queue: Promise<unknown> = batch;
      const parses = needed.map((spec) => {
        const result = queue.then(async (): Promise<StaticSchemaResult> => {
          const outcome = await batch;
          const schemas = outcome.ok ? outcome.all[spec.graphId] : undefined;
          return schemas ? { ok: true, schemas } : this.parseOne(spec);
        });
        queue = result;
        return this.track(spec, result);
      });
      registered();
      await Promise.all(parses);
    } finally {
      registered();
      this.registering = undefined;
    }
  }

  private parseOne(spec: GraphSpec): Promise<StaticSchemaResult> {
    return this.extractStatic([spec]).then(
      (all): StaticSchemaResult => {
        const schemas = all[spec.graphId];
        return schemas
          ? { ok: true, schemas }
          : { ok: false, reason: "the parser returned no schema for this graph", transient: false };
      },
      (error: unknown): StaticSchemaResult => ({
        ok: false,
        reason: error instanceof Error ? error.message : String(error),
        transient: this.isTransient(error),
      }),
    );
  }

  /** Keeps a parse in progress (so requests share it) and its result in the cache. */
  private track(spec: GraphSpec, parse: Promise<StaticSchemaResult>): Promise<StaticSchemaResult> {
    const done = parse.then((result) => {
      this.cache.put(spec, result);
      this.pending.delete(spec.graphId);
      if (!result.ok) this.onStaticError(spec.graphId, result.reason);
      return result;
    });
    this.pending.set(spec.graphId, done);
    return done;
  }

  /** The parser's schema for the root graph, or for a subgraph namespace (the root's when unknown). */
  private async staticSchema(spec: GraphSpec, ns: string | undefined): Promise<GraphSchema | undefined> {
    if (!this.cache.get(spec) && !this.pending.has(spec.graphId)) await this.registering;
    const result =
      this.cache.get(spec) ??
      (await (this.pending.get(spec.graphId) ?? this.track(spec, this.parseOne(spec))));
    if (!result.ok) return undefined;
    const all = result.schemas;
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
