import type { Dataset, Example, Feedback, FeedbackStats, ModelPrice, RunShare } from "../domain/sdk-types.js";

/** Feedback on runs and projects. */
export interface FeedbackStore {
  put(feedback: Feedback): Promise<void>;
  get(tenantId: string, id: string): Promise<Feedback | undefined>;
  list(
    tenantId: string,
    filter: {
      runIds?: string[] | undefined;
      keys?: string[] | undefined;
      sessionIds?: string[] | undefined;
      limit: number;
      offset: number;
    },
  ): Promise<Feedback[]>;
  remove(tenantId: string, id: string): Promise<boolean>;
  /** Removes feedback on runs that no longer exist (retention); how many went. */
  removeOrphans(): Promise<number>;
  /** Stats per run of these runs. */
  statsOfRuns(tenantId: string, runIds: string[]): Promise<Map<string, FeedbackStats>>;
  /** Stats of a project: feedback on its runs and on itself. */
  statsOfProject(tenantId: string, projectId: string): Promise<FeedbackStats>;
}

/** Which examples a list answers. */
export interface ExampleFilter {
  datasetId?: string | undefined;
  ids?: string[] | undefined;
  /** Examples in any of these splits (`metadata.dataset_split`). */
  splits?: string[] | undefined;
  /** Examples whose metadata contains this (JSON containment). */
  metadata?: Record<string, unknown> | undefined;
  limit: number;
  offset: number;
}

/** Datasets and their examples. */
export interface DatasetStore {
  /** Stores a new dataset; false when the workspace has one of that name (or that id). */
  create(dataset: Dataset): Promise<boolean>;
  get(tenantId: string, id: string): Promise<Dataset | undefined>;
  list(
    tenantId: string,
    filter: {
      ids?: string[] | undefined;
      name?: string | undefined;
      nameContains?: string | undefined;
      /** Datasets whose metadata contains this (JSON containment). */
      metadata?: Record<string, unknown> | undefined;
      limit: number;
      offset: number;
    },
  ): Promise<Array<Dataset & { example_count: number }>>;
  /** Rewrites a dataset's fields; false when another dataset of the workspace has its name. */
  update(dataset: Dataset): Promise<boolean>;
  /** Removes the dataset and its examples. */
  remove(tenantId: string, id: string): Promise<boolean>;
  /** Stores new examples together; false (none stored) when an id is taken, in any workspace. */
  addExamples(examples: Example[]): Promise<boolean>;
  getExample(tenantId: string, id: string): Promise<Example | undefined>;
  listExamples(tenantId: string, filter: ExampleFilter): Promise<Example[]>;
  /** The examples of these ids (any order; missing ones left out). */
  getExamples(tenantId: string, ids: string[]): Promise<Example[]>;
  /** Rewrites these examples (inputs, outputs, metadata, modified_at) together. */
  updateExamples(examples: Example[]): Promise<void>;
  /** The metadata of every example of the dataset (to gather its splits). */
  exampleMetadata(tenantId: string, datasetId: string): Promise<Array<Record<string, unknown> | null>>;
  /**
   * Removes examples together; their removal at `at` is a version of their datasets, or with
   * `purge` every state they had goes too (LangSmith's hard delete).
   */
  removeExamples(examples: Example[], at: string, purge: boolean): Promise<void>;
  exampleCount(tenantId: string, datasetId: string): Promise<number>;
}

/**
 * A dataset's versions: each add, change or removal of examples makes one, named by its time (ISO);
 * tags name versions.
 */
export interface DatasetVersionStore {
  /** The dataset's versions, newest first; with `search`, those with a tag containing it. */
  list(
    tenantId: string,
    datasetId: string,
    filter: { search?: string | undefined; limit: number; offset: number },
  ): Promise<string[]>;
  /** The last version at or before `asOf` (the latest without it); undefined when none. */
  at(tenantId: string, datasetId: string, asOf?: string): Promise<string | undefined>;
  /** The dataset's tags and the versions they name. */
  tags(tenantId: string, datasetId: string): Promise<Array<{ tag: string; as_of: string }>>;
  /** Points `tag` at the version `asOf` (moving it from another). */
  setTag(tenantId: string, datasetId: string, tag: string, asOf: string): Promise<void>;
  /** The dataset's examples as they were at version `asOf`. */
  examplesAt(
    tenantId: string,
    asOf: string,
    filter: ExampleFilter & { datasetId: string },
  ): Promise<Example[]>;
}

/** A workspace's model prices (the shipped ones are code, not rows). */
export interface PriceStore {
  list(tenantId: string): Promise<ModelPrice[]>;
  put(price: ModelPrice): Promise<void>;
  remove(tenantId: string, id: string): Promise<boolean>;
}

/** Public links of runs. */
export interface ShareStore {
  /** The run's share (made when missing). */
  share(share: RunShare): Promise<RunShare>;
  ofRun(tenantId: string, runId: string): Promise<RunShare | undefined>;
  byToken(token: string): Promise<RunShare | undefined>;
  unshare(tenantId: string, runId: string): Promise<boolean>;
  /** Removes links of runs that no longer exist (retention); how many went. */
  removeOrphans(): Promise<number>;
}

/** An LLM run of a trace, as token and cost roll-ups read it. */
export interface UsageRow {
  trace_id: string;
  dotted_order: string | null;
  model_name: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export type { FeedbackStats };
