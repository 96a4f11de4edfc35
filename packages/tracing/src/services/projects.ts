import { randomUUID } from "node:crypto";
import { costOf, PriceTable } from "../domain/prices.js";
import type { FeedbackStats } from "../domain/sdk-types.js";
import type { TracingProject } from "../domain/types.js";
import { BadRequestError, ConflictError, NotFoundError } from "../errors.js";
import type { TraceStats, TracingStorage } from "../storage/types.js";

/** What `POST /sessions` and `PATCH /sessions/{id}` may set (undefined or null: unchanged). */
export interface ProjectChanges {
  name?: string | null | undefined;
  description?: string | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  reference_dataset_id?: string | null | undefined;
  end_ms?: number | null | undefined;
}

/** A project's totals, as `readProject({includeStats: true})` shows them. */
export interface ProjectStats extends TraceStats {
  feedback_stats: FeedbackStats;
  prompt_cost: number | null;
  completion_cost: number | null;
  total_cost: number | null;
}

/** Projects made, changed and measured through the SDK (creation on first trace is TracingService's). */
export class ProjectAdmin {
  constructor(
    private readonly storage: TracingStorage,
    /** Called after a change, so ingest's cache of names and ids forgets the old ones. */
    private readonly changed: () => void,
  ) {}

  async create(
    tenantId: string,
    changes: ProjectChanges & { id?: string | undefined },
  ): Promise<TracingProject> {
    if (!changes.name) throw new BadRequestError("A project needs a name.");
    await this.#checkDataset(tenantId, changes.reference_dataset_id);
    const project: TracingProject = {
      id: changes.id ?? randomUUID(),
      tenant_id: tenantId,
      name: changes.name,
      deployment_id: null,
      created_at: new Date().toISOString(),
      description: changes.description ?? null,
      metadata: changes.metadata ?? null,
      reference_dataset_id: changes.reference_dataset_id ?? null,
      end_ms: changes.end_ms ?? null,
    };
    if (!(await this.storage.projects.create(project))) {
      throw new ConflictError(
        `A project named ${JSON.stringify(changes.name.slice(0, 100))} already exists.`,
      );
    }
    return project;
  }

  async update(tenantId: string, id: string, changes: ProjectChanges): Promise<TracingProject> {
    const project = await this.storage.projects.get(tenantId, id);
    if (!project) throw new NotFoundError(`Tracing project ID ${id} not found.`);
    await this.#checkDataset(tenantId, changes.reference_dataset_id);
    const next: TracingProject = {
      ...project,
      name: changes.name ?? project.name,
      description: changes.description ?? project.description ?? null,
      metadata: changes.metadata ?? project.metadata ?? null,
      reference_dataset_id: changes.reference_dataset_id ?? project.reference_dataset_id ?? null,
      end_ms: changes.end_ms ?? project.end_ms ?? null,
    };
    if (!(await this.storage.projects.update(next))) {
      throw new ConflictError(`A project named ${JSON.stringify(next.name.slice(0, 100))} already exists.`);
    }
    this.changed();
    return next;
  }

  /** Totals of the project's traces: counts, latency, tokens, cost, feedback. */
  async stats(tenantId: string, projectId: string): Promise<ProjectStats> {
    const [traces, feedback, usage, prices] = await Promise.all([
      this.storage.traces.stats(tenantId, projectId, {}),
      this.storage.feedback.statsOfProject(tenantId, projectId),
      this.storage.traces.usageByModel(tenantId, projectId),
      this.storage.prices.list(tenantId),
    ]);
    const table = new PriceTable(prices);
    const cost = { known: false, prompt: 0, completion: 0, total: 0 };
    for (const row of usage) {
      const price = table.priceFor(row.model_name);
      if (!price) continue;
      const c = costOf(price, { prompt: row.prompt_tokens, completion: row.completion_tokens });
      cost.known = true;
      cost.prompt += c.prompt;
      cost.completion += c.completion;
      cost.total += c.total;
    }
    return {
      ...traces,
      feedback_stats: feedback,
      prompt_cost: cost.known ? cost.prompt : null,
      completion_cost: cost.known ? cost.completion : null,
      total_cost: cost.known ? cost.total : null,
    };
  }

  async #checkDataset(tenantId: string, datasetId: string | null | undefined): Promise<void> {
    if (datasetId && !(await this.storage.datasets.get(tenantId, datasetId))) {
      throw new NotFoundError(`Dataset ${datasetId} not found.`);
    }
  }
}
