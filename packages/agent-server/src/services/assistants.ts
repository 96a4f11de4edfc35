import type { Assistant, AssistantSearch } from "@berth/schemas";
import { NotFoundError } from "../errors.js";
import { systemAssistantId } from "../graphs/assistant-id.js";
import type { GraphRegistry } from "../graphs/registry.js";
import type { AssistantStore } from "../storage/types.js";

/** Assistant lookups; an `assistant_id` may also be a graph id (its system assistant). */
export class AssistantService {
  constructor(
    private readonly assistants: AssistantStore,
    private readonly registry: GraphRegistry,
  ) {}

  /** Resolves a uuid or a graph id to an assistant, or throws 404. */
  async get(idOrGraph: string): Promise<Assistant> {
    const id = this.registry.has(idOrGraph) ? systemAssistantId(idOrGraph) : idOrGraph.toLowerCase();
    const assistant = await this.assistants.get(id);
    if (!assistant) throw new NotFoundError(`Assistant ${idOrGraph} not found`);
    return assistant;
  }

  search(filter: AssistantSearch): Promise<Assistant[]> {
    return this.assistants.search(filter);
  }
}
