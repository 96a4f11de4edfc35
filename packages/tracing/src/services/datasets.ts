import { randomUUID } from "node:crypto";
import type { Dataset, Example } from "../domain/sdk-types.js";
import { BadRequestError, ConflictError, NotFoundError } from "../errors.js";
import type { TracingStorage } from "../storage/types.js";

/** One example to add: its fields, or a run to copy them from. */
export interface ExampleInput {
  id?: string | undefined;
  inputs?: unknown;
  outputs?: unknown;
  metadata?: Record<string, unknown> | undefined;
  source_run_id?: string | undefined;
  /** Take inputs and outputs from the source run (also when no inputs are given). */
  use_source_run_io?: boolean | undefined;
  created_at?: string | undefined;
}

/** Datasets and examples: what `evaluate()` runs a target over. */
export class DatasetService {
  constructor(private readonly storage: TracingStorage) {}

  async create(
    tenantId: string,
    input: {
      id?: string | undefined;
      name: string;
      description?: string | null | undefined;
      data_type?: string | undefined;
      metadata?: Record<string, unknown> | undefined;
    },
  ): Promise<Dataset & { example_count: number }> {
    const existing = await this.storage.datasets.list(tenantId, { name: input.name, limit: 1, offset: 0 });
    if (existing.length > 0)
      throw new ConflictError(`Dataset ${JSON.stringify(input.name.slice(0, 100))} already exists.`);
    const now = new Date().toISOString();
    const dataset: Dataset = {
      id: input.id ?? randomUUID(),
      tenant_id: tenantId,
      name: input.name,
      description: input.description ?? null,
      data_type: input.data_type ?? "kv",
      metadata: input.metadata ?? null,
      created_at: now,
      modified_at: now,
    };
    await this.storage.datasets.create(dataset);
    return { ...dataset, example_count: 0 };
  }

  async get(tenantId: string, id: string): Promise<Dataset & { example_count: number }> {
    const dataset = await this.storage.datasets.get(tenantId, id);
    if (!dataset) throw new NotFoundError(`Dataset ${id} not found.`);
    return { ...dataset, example_count: await this.storage.datasets.exampleCount(tenantId, id) };
  }

  list(
    tenantId: string,
    filter: { ids?: string[]; name?: string; nameContains?: string; limit: number; offset: number },
  ) {
    return this.storage.datasets.list(tenantId, filter);
  }

  async remove(tenantId: string, id: string): Promise<void> {
    if (!(await this.storage.datasets.remove(tenantId, id)))
      throw new NotFoundError(`Dataset ${id} not found.`);
  }

  /** Adds examples to a dataset of the workspace; a source run must be the workspace's (404). */
  async addExamples(tenantId: string, datasetId: string, inputs: ExampleInput[]): Promise<Example[]> {
    await this.get(tenantId, datasetId);
    const now = new Date().toISOString();
    const examples: Example[] = [];
    for (const input of inputs) {
      let { inputs: fields, outputs } = input;
      if (input.source_run_id && (input.use_source_run_io || fields === undefined)) {
        const run = await this.storage.traces.get(tenantId, input.source_run_id);
        if (!run) throw new NotFoundError(`Run ${input.source_run_id} not found.`);
        fields = run.inputs ?? {};
        outputs = run.outputs ?? null;
      }
      if (typeof fields !== "object" || fields === null || Array.isArray(fields)) {
        throw new BadRequestError("An example's inputs must be a JSON object.");
      }
      examples.push({
        id: input.id ?? randomUUID(),
        tenant_id: tenantId,
        dataset_id: datasetId,
        inputs: fields,
        outputs: outputs ?? null,
        metadata: input.metadata ?? null,
        source_run_id: input.source_run_id ?? null,
        created_at: input.created_at ?? now,
        modified_at: now,
      });
    }
    const ids = new Set<string>();
    for (const example of examples) {
      if (ids.has(example.id) || (await this.storage.datasets.getExample(tenantId, example.id))) {
        throw new ConflictError(`Example ${example.id} already exists.`);
      }
      ids.add(example.id);
    }
    await this.storage.datasets.addExamples(examples);
    return examples;
  }

  async example(tenantId: string, id: string): Promise<Example> {
    const example = await this.storage.datasets.getExample(tenantId, id);
    if (!example) throw new NotFoundError(`Example ${id} not found.`);
    return example;
  }

  listExamples(
    tenantId: string,
    filter: { datasetId?: string; ids?: string[]; limit: number; offset: number },
  ) {
    return this.storage.datasets.listExamples(tenantId, filter);
  }

  async removeExample(tenantId: string, id: string): Promise<void> {
    if (!(await this.storage.datasets.removeExample(tenantId, id)))
      throw new NotFoundError(`Example ${id} not found.`);
  }
}
