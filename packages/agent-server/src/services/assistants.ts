import type {
  Assistant,
  AssistantCreate,
  AssistantPatch,
  AssistantSearch,
  JsonObject,
} from "@berth-platform/schemas";
import { v4 as uuidv4 } from "uuid";
import { mirrorContext } from "../domain/context-mirror.js";
import { NotFoundError } from "../errors.js";
import { systemAssistantId } from "../graphs/assistant-id.js";
import type { GraphRegistry, RunnableGraph } from "../graphs/registry.js";
import type { GraphSchemaReader, GraphSchemas } from "../graphs/schemas.js";
import type { GraphSpec } from "../graphs/spec.js";
import type { AssistantFilter, AssistantStore, AssistantVersion } from "../storage/types.js";

/** Assistant use cases; an `assistant_id` may also be a graph id (its system assistant). */
export class AssistantService {
  constructor(
    private readonly assistants: AssistantStore,
    private readonly registry: GraphRegistry,
    private readonly schemaReader: GraphSchemaReader,
  ) {}

  private idOf(idOrGraph: string): string {
    return this.registry.inProject(idOrGraph) ? systemAssistantId(idOrGraph) : idOrGraph.toLowerCase();
  }

  /** Resolves a uuid or a graph id to an assistant, or throws 404 (the official JS server's words). */
  async get(idOrGraph: string): Promise<Assistant> {
    const assistant = await this.assistants.get(this.idOf(idOrGraph));
    if (!assistant) throw new NotFoundError("Assistant not found");
    return assistant;
  }

  /** The assistant a run or cron names, or 404 in the official servers' words for that case. */
  async forRun(idOrGraph: string): Promise<Assistant> {
    const assistant = await this.assistants.get(this.idOf(idOrGraph));
    if (!assistant) {
      throw new NotFoundError(
        `No assistant found for "${idOrGraph}". Make sure the assistant ID is for a valid assistant or a valid graph ID.`,
      );
    }
    return assistant;
  }

  async create(given: AssistantCreate): Promise<Assistant> {
    this.requireGraph(given.graph_id);
    // `context` and `config.configurable` kept in step, as the official server keeps them.
    const body = mirrorContext(given);
    const now = new Date().toISOString();
    return this.assistants.create(
      {
        assistant_id: body.assistant_id?.toLowerCase() ?? uuidv4(),
        graph_id: body.graph_id,
        config: body.config ?? {},
        context: body.context ?? {},
        metadata: body.metadata ?? {},
        name: body.name ?? "Untitled",
        description: body.description ?? null,
        version: 1,
        created_at: now,
        updated_at: now,
      },
      body.if_exists ?? "raise",
    );
  }

  async patch(idOrGraph: string, body: AssistantPatch): Promise<Assistant> {
    if (body.graph_id) this.requireGraph(body.graph_id);
    // A patch giving only one of `context` and `config.configurable` sets the other to match (both
    // are replaced by a patch that gives them).
    const changes = Object.fromEntries(
      Object.entries(mirrorContext(body)).filter(([, value]) => value !== undefined && value !== null),
    );
    const updated = await this.assistants.patch(this.idOf(idOrGraph), changes);
    if (!updated) throw new NotFoundError("Assistant not found");
    return updated;
  }

  async delete(idOrGraph: string): Promise<string> {
    const id = this.idOf(idOrGraph);
    if (!(await this.assistants.delete(id))) throw new NotFoundError("Assistant not found");
    return id;
  }

  search(filter: AssistantSearch): Promise<Assistant[]> {
    return this.assistants.search(filter);
  }

  count(filter: AssistantFilter): Promise<number> {
    return this.assistants.count(filter);
  }

  async versions(
    idOrGraph: string,
    options: { metadata?: JsonObject | null | undefined; limit: number; offset: number },
  ): Promise<AssistantVersion[]> {
    const versions = await this.assistants.versions(this.idOf(idOrGraph), options);
    if (versions.length === 0) await this.get(idOrGraph);
    return versions;
  }

  async setLatest(idOrGraph: string, version: number): Promise<Assistant> {
    const updated = await this.assistants.setLatest(this.idOf(idOrGraph), version);
    if (!updated) throw new NotFoundError(`Assistant ${idOrGraph} has no version ${version}`);
    return updated;
  }

  /** The compiled graph behind an assistant, built with its config. */
  private async graphOf(
    idOrGraph: string,
  ): Promise<{ assistant: Assistant; graph: RunnableGraph; spec: GraphSpec }> {
    const assistant = await this.get(idOrGraph);
    const spec = this.registry.specOf(assistant.graph_id);
    if (!spec) throw new NotFoundError(`Graph ${assistant.graph_id} not found`);
    const graph = await this.registry.getGraph(assistant.graph_id, {
      configurable: { ...(assistant.config.configurable as object) },
    });
    return { assistant, graph, spec };
  }

  /** The drawable graph: `{nodes, edges}`. */
  async drawable(idOrGraph: string, xray: boolean | number): Promise<unknown> {
    const { graph } = await this.graphOf(idOrGraph);
    const drawable = await (
      graph as unknown as { getGraphAsync(c: object): Promise<{ toJSON(): unknown }> }
    ).getGraphAsync({ xray });
    return drawable.toJSON();
  }

  async schemas(idOrGraph: string): Promise<GraphSchemas> {
    const { graph, spec } = await this.graphOf(idOrGraph);
    return this.schemaReader.schemas(spec, graph);
  }

  /** Schemas of the graph's subgraphs, by namespace. */
  async subgraphs(
    idOrGraph: string,
    namespace: string | undefined,
    recurse: boolean,
  ): Promise<Record<string, unknown>> {
    const { graph, spec } = await this.graphOf(idOrGraph);
    const found: Record<string, unknown> = {};
    const iterable = (
      graph as unknown as {
        getSubgraphsAsync(ns?: string, recurse?: boolean): AsyncIterable<[string, RunnableGraph]>;
      }
    ).getSubgraphsAsync(namespace, recurse);
    for await (const [ns, subgraph] of iterable) {
      found[ns] = await this.schemaReader.subgraphSchemas(spec, ns, subgraph);
    }
    return found;
  }

  private requireGraph(graphId: string): void {
    if (!this.registry.has(graphId)) throw new NotFoundError(`Graph ${graphId} not found`);
  }
}
