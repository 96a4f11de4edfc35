import type { Assistant } from "@berth/schemas";
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
  checkpointer?: unknown;
  store?: unknown;
}

type Resolved =
  | { kind: "graph"; graph: RunnableGraph }
  | { kind: "factory"; factory: (config: RunnableConfig) => unknown };

function isCompiled(value: unknown): value is RunnableGraph {
  const v = value as Record<string, unknown> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.stream === "function" &&
    typeof v.getState === "function" &&
    typeof v.updateState === "function"
  );
}

function isUncompiled(value: unknown): value is { compile(options?: object): unknown } {
  const v = value as Record<string, unknown> | null;
  return typeof v === "object" && v !== null && typeof v.compile === "function";
}

/** Loaded graphs by id, each running with the server's checkpointer; one registry per server. */
export class GraphRegistry {
  private readonly graphs = new Map<string, { spec: GraphSpec; resolved: Resolved }>();

  constructor(
    private readonly checkpointer: unknown,
    /** The server's long-term memory (a LangGraph BaseStore), given to every graph as its store. */
    private readonly store?: unknown,
  ) {}

  /** Imports every graph of the project; the first failure stops the start with a clear error. */
  async loadAll(specs: readonly GraphSpec[]): Promise<void> {
    for (const spec of specs) {
      const exported = await importGraphExport(spec);
      this.graphs.set(spec.graphId, { spec, resolved: await this.resolve(spec, exported) });
    }
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

  get graphIds(): string[] {
    return [...this.graphs.keys()];
  }

  /** The graph to run: factories are called with the run's config each time. */
  async getGraph(graphId: string, config: RunnableConfig): Promise<RunnableGraph> {
    const entry = this.graphs.get(graphId);
    if (!entry) throw new Error(`Graph "${graphId}" is not loaded`);
    if (entry.resolved.kind === "graph") return entry.resolved.graph;
    const made = await entry.resolved.factory(config);
    if (isCompiled(made)) return this.inject(made);
    if (isUncompiled(made)) return this.compile(entry.spec, made);
    throw new GraphLoadError(entry.spec, "the factory did not return a compiled graph or a StateGraph");
  }

  /** One system assistant per graph, with the official uuid5 id. */
  systemAssistants(now: string): Assistant[] {
    return [...this.graphs.values()].map(({ spec }) => ({
      assistant_id: systemAssistantId(spec.graphId),
      graph_id: spec.graphId,
      config: {},
      context: {},
      metadata: { created_by: "system" },
      name: spec.graphId,
      description: spec.description,
      version: 1,
      created_at: now,
      updated_at: now,
    }));
  }
}
