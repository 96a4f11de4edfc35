import type { Assistant, JsonObject } from "@berth-platform/schemas";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { StateSnapshot } from "@langchain/langgraph";
import { systemAssistantId } from "./assistant-id.js";
import { GraphLoadError, importGraphExport } from "./load.js";
import type { GraphSpec } from "./spec.js";

/** The parts of a compiled LangGraph graph the server uses. */
export interface RunnableGraph {
  stream(input: unknown, options: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  streamEvents(
    input: unknown,
    options: Record<string, unknown> & { version: "v2" },
  ): AsyncIterable<{ event: string; run_id: string; data: { chunk?: unknown } }>;
  getState(config: RunnableConfig, options?: { subgraphs?: boolean }): Promise<StateSnapshot>;
  getStateHistory(
    config: RunnableConfig,
    options?: { limit?: number; before?: RunnableConfig; filter?: Record<string, unknown> },
  ): AsyncIterableIterator<StateSnapshot>;
  updateState(config: RunnableConfig, values: unknown, asNode?: string): Promise<RunnableConfig>;
  bulkUpdateState(
    config: RunnableConfig,
    supersteps: Array<{ updates: Array<{ values: unknown; asNode?: string }> }>,
  ): Promise<RunnableConfig>;
  checkpointer?: unknown;
  store?: unknown;
}

type Resolved =
  | { kind: "graph"; graph: RunnableGraph }
  | { kind: "factory"; factory: (config: RunnableConfig) => unknown };

/** Whether a value is a compiled graph (duck-typed: the project has its own LangGraph copy). */
export function isCompiled(value: unknown): value is RunnableGraph {
  const v = value as Record<string, unknown> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.stream === "function" &&
    typeof v.getState === "function" &&
    typeof v.updateState === "function"
  );
}

/** Whether a value is a graph builder (has compile()). */
export function isUncompiled(value: unknown): value is { compile(options?: object): unknown } {
  const v = value as Record<string, unknown> | null;
  return typeof v === "object" && v !== null && typeof v.compile === "function";
}

/** Loaded graphs by id, each running with the server's checkpointer; one registry per server. */
export class GraphRegistry {
  private readonly graphs = new Map<string, { spec: GraphSpec; resolved: Resolved }>();
  /** Graphs that did not load, with the reason: the others are served all the same. */
  private readonly failures = new Map<string, { spec: GraphSpec; reason: string }>();

  constructor(
    private readonly checkpointer: unknown,
    /** The server's long-term memory (a LangGraph BaseStore), given to every graph as its store. */
    private readonly store?: unknown,
  ) {}

  /**
   * Imports every graph of the project. One that fails is recorded with its reason (start-up
   * output, /info, and runs on it say why) and the others are served, as one broken graph must not
   * take a whole project down.
   */
  async loadAll(specs: readonly GraphSpec[]): Promise<void> {
    for (const spec of specs) {
      try {
        const exported = await importGraphExport(spec);
        this.graphs.set(spec.graphId, { spec, resolved: await this.resolve(spec, exported) });
      } catch (error) {
        this.failures.set(spec.graphId, {
          spec,
          reason: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }

  /** Whether the project names this graph (loaded or not): its system assistant exists either way. */
  inProject(graphId: string): boolean {
    return this.graphs.has(graphId) || this.failures.has(graphId);
  }

  /** Why a graph of the project did not load, or undefined (loaded, or not in the project). */
  failure(graphId: string): string | undefined {
    return this.failures.get(graphId)?.reason;
  }

  /** Graphs that did not load, by id, with their reasons. */
  get loadFailures(): Record<string, string> {
    return Object.fromEntries([...this.failures].map(([id, f]) => [id, f.reason]));
  }

  private async resolve(spec: GraphSpec, exported: unknown): Promise<Resolved> {
    const value = await exported;
    if (isCompiled(value)) return { kind: "graph", graph: this.inject(value) };
    if (isUncompiled(value)) return { kind: "graph", graph: this.compile(spec, value) };
    if (typeof value === "function")
      return { kind: "factory", factory: value as (config: RunnableConfig) => unknown };
    throw new GraphLoadError(
      spec,
      "the export is not a compiled graph, a StateGraph, or a function returning one of them",
    );
  }

  private compile(spec: GraphSpec, builder: { compile(options?: object): unknown }): RunnableGraph {
    const compiled = builder.compile({ checkpointer: this.checkpointer, store: this.store });
    if (!isCompiled(compiled)) throw new GraphLoadError(spec, "compile() did not return a graph");
    return compiled;
  }

  /** The server's checkpointer and store replace whatever the graph was compiled with (as the official server does). */
  private inject(graph: RunnableGraph): RunnableGraph {
    graph.checkpointer = this.checkpointer;
    if (this.store !== undefined) graph.store = this.store;
    return graph;
  }

  has(graphId: string): boolean {
    return this.graphs.has(graphId);
  }

  /** The compiled graph of an export that is one (undefined for a factory or a graph not loaded). */
  loadedGraph(graphId: string): RunnableGraph | undefined {
    const resolved = this.graphs.get(graphId)?.resolved;
    return resolved?.kind === "graph" ? resolved.graph : undefined;
  }

  /** Specs of the loaded graphs. */
  get loadedSpecs(): GraphSpec[] {
    return [...this.graphs.values()].map((entry) => entry.spec);
  }

  /** Where a loaded graph comes from (module path, export), or undefined. */
  specOf(graphId: string): GraphSpec | undefined {
    return this.graphs.get(graphId)?.spec;
  }

  get graphIds(): string[] {
    return [...this.graphs.keys()];
  }

  /** The graph to run: factories are called with the run's config each time. */
  async getGraph(graphId: string, config: RunnableConfig): Promise<RunnableGraph> {
    const entry = this.graphs.get(graphId);
    if (!entry) throw new Error(this.failure(graphId) ?? `Graph "${graphId}" is not loaded`);
    if (entry.resolved.kind === "graph") return entry.resolved.graph;
    const made = await entry.resolved.factory(config);
    if (isCompiled(made)) return this.inject(made);
    if (isUncompiled(made)) return this.compile(entry.spec, made);
    throw new GraphLoadError(entry.spec, "the factory did not return a compiled graph or a StateGraph");
  }

  /**
   * One system assistant per graph of the project, with the official uuid5 id (failed graphs too,
   * so a run on one is told why rather than that no assistant exists).
   */
  systemAssistants(
    now: string,
    graphConfigs: Readonly<Record<string, Record<string, unknown>>> = {},
  ): Assistant[] {
    return [...this.graphs.values(), ...this.failures.values()].map(({ spec }) => {
      // `LANGGRAPH_CONFIG`'s entry for the graph: `context` to the context, the rest to the config.
      const { context, ...config } = graphConfigs[spec.graphId] ?? {};
      return {
        assistant_id: systemAssistantId(spec.graphId),
        graph_id: spec.graphId,
        config: config as JsonObject,
        context: (typeof context === "object" && context !== null ? context : {}) as JsonObject,
        metadata: { created_by: "system" },
        name: spec.graphId,
        description: spec.description,
        version: 1,
        created_at: now,
        updated_at: now,
      };
    });
  }
}
