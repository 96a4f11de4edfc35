import { randomUUID } from "node:crypto";
import { holdsNul, NUL_MESSAGE } from "../domain/metadata-filter.js";
import type { Dataset, Example } from "../domain/sdk-types.js";
import {
  applyOperations,
  type MetadataOperation,
  SPLIT_KEY,
  splitsOf,
  withSplits,
} from "../domain/splits.js";
import { BadRequestError, ConflictError, NotFoundError } from "../errors.js";
import type { ExampleFilter } from "../storage/sdk-types.js";
import type { TracingStorage } from "../storage/types.js";
import { DatasetVersions } from "./dataset-versions.js";

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
  /** Its splits (`metadata.dataset_split`); the base split when neither gives one. */
  split?: string | string[] | undefined;
}

/** One example's changes (`PATCH …/examples`): what is given replaces; the rest stays. */
export interface ExampleUpdate {
  id: string;
  inputs?: unknown;
  outputs?: unknown;
  /** Replaces the metadata; its splits stay unless it names them or `split` is given. */
  metadata?: Record<string, unknown> | undefined;
  split?: string | string[] | undefined;
}

/** Metadata as stored: filters read it as PostgreSQL jsonb, which refuses U+0000 (a 400 here). */
function checked<T>(metadata: T): T {
  if (holdsNul(metadata)) throw new BadRequestError(NUL_MESSAGE);
  return metadata;
}

/** A time strictly after `previous` (ISO), so each change moves `modified_at`. */
function after(previous: string, now: string): string {
  return now > previous ? now : new Date(Date.parse(previous) + 1).toISOString();
}

/** Datasets and examples: what `evaluate()` runs a target over. */
export class DatasetService {
  /** Versions and tags; examples and splits as of a version. */
  readonly versions: DatasetVersions;

  constructor(private readonly storage: TracingStorage) {
    this.versions = new DatasetVersions(storage, (tenantId, id) => this.get(tenantId, id));
  }

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
      metadata: checked(input.metadata ?? null),
      created_at: now,
      modified_at: now,
    };
    // Also a name taken since the check above (the unique index), or an id taken anywhere.
    if (!(await this.storage.datasets.create(dataset)))
      throw new ConflictError(
        `Dataset ${JSON.stringify(input.name.slice(0, 100))} or its id already exists.`,
      );
    return { ...dataset, example_count: 0 };
  }

  async get(tenantId: string, id: string): Promise<Dataset & { example_count: number }> {
    const dataset = await this.storage.datasets.get(tenantId, id);
    if (!dataset) throw new NotFoundError(`Dataset ${id} not found.`);
    return { ...dataset, example_count: await this.storage.datasets.exampleCount(tenantId, id) };
  }

  list(
    tenantId: string,
    filter: {
      ids?: string[];
      name?: string;
      nameContains?: string;
      metadata?: Record<string, unknown>;
      limit: number;
      offset: number;
    },
  ) {
    return this.storage.datasets.list(tenantId, filter);
  }

  /** Renames or redescribes a dataset, or replaces its metadata (null clears); a taken name is 409. */
  async update(
    tenantId: string,
    id: string,
    change: {
      name?: string | undefined;
      description?: string | null | undefined;
      metadata?: Record<string, unknown> | null | undefined;
    },
  ): Promise<Dataset & { example_count: number }> {
    const current = await this.get(tenantId, id);
    if (change.name !== undefined && change.name !== current.name) {
      const taken = await this.storage.datasets.list(tenantId, { name: change.name, limit: 1, offset: 0 });
      if (taken.length > 0)
        throw new ConflictError(`Dataset ${JSON.stringify(change.name.slice(0, 100))} already exists.`);
    }
    const { example_count, ...dataset } = current;
    const next: Dataset = {
      ...dataset,
      ...(change.name !== undefined ? { name: change.name } : {}),
      ...(change.description !== undefined ? { description: change.description } : {}),
      ...(change.metadata !== undefined ? { metadata: checked(change.metadata) } : {}),
      modified_at: after(current.modified_at, new Date().toISOString()),
    };
    if (!(await this.storage.datasets.update(next)))
      throw new ConflictError(`Dataset ${JSON.stringify(next.name.slice(0, 100))} already exists.`);
    return { ...next, example_count };
  }

  /** The names of the dataset's splits, sorted (as of a version: a time, a tag, "latest"). */
  async splits(tenantId: string, datasetId: string, asOf?: string): Promise<string[]> {
    await this.get(tenantId, datasetId);
    const at = await this.versions.resolve(tenantId, datasetId, asOf);
    if (at !== undefined) return this.versions.splits(tenantId, datasetId, at);
    const names = new Set<string>();
    for (const metadata of await this.storage.datasets.exampleMetadata(tenantId, datasetId)) {
      for (const name of splitsOf(metadata)) names.add(name);
    }
    return [...names].sort();
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
        metadata: checked(withSplits(input.metadata, input.split)),
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
    // An id taken in another workspace (ids are unique across them) or since the check above.
    if (!(await this.storage.datasets.addExamples(examples)))
      throw new ConflictError("An example with one of these ids already exists.");
    return examples;
  }

  async example(tenantId: string, id: string): Promise<Example> {
    const example = await this.storage.datasets.getExample(tenantId, id);
    if (!example) throw new NotFoundError(`Example ${id} not found.`);
    return example;
  }

  /** Examples, the latest or (with `asOf` and a dataset) as of a version of that dataset. */
  async listExamples(
    tenantId: string,
    filter: ExampleFilter & { asOf?: string | undefined },
  ): Promise<Example[]> {
    const { asOf, ...rest } = filter;
    if (asOf === undefined || asOf === "latest") return this.storage.datasets.listExamples(tenantId, rest);
    const datasetId = rest.datasetId;
    if (datasetId === undefined) throw new BadRequestError("as_of needs a dataset.");
    await this.get(tenantId, datasetId);
    const at = await this.versions.resolve(tenantId, datasetId, asOf);
    if (at === undefined) return this.storage.datasets.listExamples(tenantId, rest);
    return this.versions.examples(tenantId, at, { ...rest, datasetId });
  }

  /**
   * Applies changes to examples of one dataset, all or none: an example of another dataset or
   * workspace is a 404, as is the dataset.
   */
  async updateExamples(tenantId: string, datasetId: string, updates: ExampleUpdate[]): Promise<Example[]> {
    await this.get(tenantId, datasetId);
    const found = await this.examplesOf(
      tenantId,
      datasetId,
      updates.map((u) => u.id),
    );
    const now = new Date().toISOString();
    const changed: Example[] = [];
    for (const update of updates) {
      const example = found.get(update.id);
      if (!example) throw new NotFoundError(`Example ${update.id} not found in dataset ${datasetId}.`);
      if (update.inputs !== undefined && !isObject(update.inputs)) {
        throw new BadRequestError("An example's inputs must be a JSON object.");
      }
      const metadata =
        update.metadata === undefined
          ? example.metadata
          : SPLIT_KEY in update.metadata
            ? update.metadata
            : { ...update.metadata, [SPLIT_KEY]: splitsOf(example.metadata) };
      changed.push({
        ...example,
        ...(update.inputs !== undefined ? { inputs: update.inputs } : {}),
        ...(update.outputs !== undefined ? { outputs: update.outputs } : {}),
        metadata: checked(withSplits(metadata, update.split)),
        modified_at: after(example.modified_at, now),
      });
    }
    await this.storage.datasets.updateExamples(changed);
    return changed;
  }

  /**
   * LangSmith's bulk metadata change: the same operations on each listed example of the dataset,
   * together; ids not in it are skipped and reported NOT_FOUND (the dataset itself must exist).
   */
  async updateExampleMetadata(
    tenantId: string,
    datasetId: string,
    exampleIds: string[],
    operations: MetadataOperation[],
  ): Promise<Array<{ id: string; status: "UPDATED" | "NOT_FOUND"; description?: string }>> {
    if (!(await this.storage.datasets.get(tenantId, datasetId))) {
      // The SDK tells a missing dataset from a missing route by this wording.
      throw new NotFoundError("Dataset not found.");
    }
    const found = await this.examplesOf(tenantId, datasetId, exampleIds);
    const now = new Date().toISOString();
    const changed = new Map<string, Example>();
    for (const id of exampleIds) {
      const example = found.get(id);
      if (!example || changed.has(id)) continue;
      changed.set(id, {
        ...example,
        metadata: checked(applyOperations(example.metadata, operations)),
        modified_at: after(example.modified_at, now),
      });
    }
    await this.storage.datasets.updateExamples([...changed.values()]);
    return exampleIds.map((id) =>
      found.has(id)
        ? { id, status: "UPDATED" as const }
        : { id, status: "NOT_FOUND" as const, description: "The example is not in this dataset." },
    );
  }

  /** The examples of these ids that belong to the dataset (of the workspace), by id. */
  private async examplesOf(
    tenantId: string,
    datasetId: string,
    ids: string[],
  ): Promise<Map<string, Example>> {
    const examples = await this.storage.datasets.getExamples(tenantId, [...new Set(ids)]);
    return new Map(examples.filter((e) => e.dataset_id === datasetId).map((e) => [e.id, e]));
  }

  async removeExample(tenantId: string, id: string): Promise<void> {
    await this.removeExamples(tenantId, [id], false);
  }

  /**
   * Removes examples of the workspace, all or none (any other id is a 404). Their removal is a
   * version of their datasets; `purge` (LangSmith's hard delete) also drops every past state.
   */
  async removeExamples(tenantId: string, ids: string[], purge: boolean): Promise<void> {
    const unique = [...new Set(ids)];
    const examples = await this.storage.datasets.getExamples(tenantId, unique);
    const found = new Set(examples.map((e) => e.id));
    const missing = unique.find((id) => !found.has(id));
    if (missing) throw new NotFoundError(`Example ${missing} not found.`);
    const latest = examples.reduce((max, e) => (e.modified_at > max ? e.modified_at : max), "");
    await this.storage.datasets.removeExamples(examples, after(latest, new Date().toISOString()), purge);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
