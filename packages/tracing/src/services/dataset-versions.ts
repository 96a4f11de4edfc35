import type { Example } from "../domain/sdk-types.js";
import { splitsOf } from "../domain/splits.js";
import { BadRequestError, NotFoundError } from "../errors.js";
import type { ExampleFilter } from "../storage/sdk-types.js";
import type { TracingStorage } from "../storage/types.js";

/** A version of a dataset as LangSmith answers it. */
export interface DatasetVersion {
  as_of: string;
  tags: string[];
}

/** The most examples a diff or a split list reads at one version. */
const ALL = 1_000_000;

/** A timestamp (ISO 8601, a date at least) rather than a tag name. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}/;

/**
 * Dataset versions as LangSmith keeps them: every add, change or removal of examples is a version
 * named by its time; tags name versions; reads take `as_of` (a time, a tag, or "latest").
 */
export class DatasetVersions {
  constructor(
    private readonly storage: TracingStorage,
    /** The dataset of the workspace (a 404 otherwise). */
    private readonly dataset: (tenantId: string, id: string) => Promise<unknown>,
  ) {}

  /**
   * The version `asOf` names: undefined for the latest; a time for itself (normalized, not
   * necessarily a version: reads take the last version at or before it); a tag for its version.
   */
  async resolve(tenantId: string, datasetId: string, asOf: string | undefined): Promise<string | undefined> {
    if (asOf === undefined || asOf === "latest") return undefined;
    if (TIMESTAMP.test(asOf)) return normalized(asOf);
    const tag = (await this.storage.datasetVersions.tags(tenantId, datasetId)).find((t) => t.tag === asOf);
    if (!tag)
      throw new NotFoundError(
        `Dataset ${datasetId} has no version tagged ${JSON.stringify(asOf.slice(0, 100))}.`,
      );
    return tag.as_of;
  }

  /** The version nearest before `asOf` (a time), or the one `tag` names ("latest": the newest). */
  async read(
    tenantId: string,
    datasetId: string,
    by: { asOf?: string; tag?: string },
  ): Promise<DatasetVersion> {
    await this.dataset(tenantId, datasetId);
    if ((by.asOf === undefined) === (by.tag === undefined)) {
      throw new BadRequestError("Give exactly one of as_of and tag.");
    }
    const wanted =
      by.asOf !== undefined
        ? normalized(by.asOf)
        : await this.resolve(tenantId, datasetId, by.tag === "latest" ? undefined : (by.tag ?? ""));
    const version = await this.storage.datasetVersions.at(tenantId, datasetId, wanted);
    if (!version)
      throw new NotFoundError(`Dataset ${datasetId} has no version at or before ${wanted ?? "now"}.`);
    return this.withTags(tenantId, datasetId, [version]).then((v) => v[0] as DatasetVersion);
  }

  /** The dataset's versions, newest first (with `search`: those with a tag containing it). */
  async list(
    tenantId: string,
    datasetId: string,
    filter: { search?: string | undefined; limit: number; offset: number },
  ): Promise<DatasetVersion[]> {
    await this.dataset(tenantId, datasetId);
    const versions = await this.storage.datasetVersions.list(tenantId, datasetId, filter);
    return this.withTags(tenantId, datasetId, versions);
  }

  /** Points `tag` at the version made exactly at `asOf` (moving it); a time that is no version is a 404. */
  async tag(tenantId: string, datasetId: string, asOf: string, tag: string): Promise<DatasetVersion> {
    await this.dataset(tenantId, datasetId);
    const at = normalized(asOf);
    if ((await this.storage.datasetVersions.at(tenantId, datasetId, at)) !== at) {
      throw new NotFoundError(`Dataset ${datasetId} has no version at exactly ${at}.`);
    }
    await this.storage.datasetVersions.setTag(tenantId, datasetId, tag, at);
    return (await this.withTags(tenantId, datasetId, [at]))[0] as DatasetVersion;
  }

  /** The dataset's examples at version `at` (a resolved time). */
  examples(tenantId: string, at: string, filter: ExampleFilter & { datasetId: string }): Promise<Example[]> {
    return this.storage.datasetVersions.examplesAt(tenantId, at, filter);
  }

  /** The names of the dataset's splits at version `at`, sorted. */
  async splits(tenantId: string, datasetId: string, at: string): Promise<string[]> {
    const examples = await this.examples(tenantId, at, { datasetId, limit: ALL, offset: 0 });
    return [...new Set(examples.flatMap((e) => splitsOf(e.metadata)))].sort();
  }

  /** Which examples were added, removed or changed between two versions (times or tags). */
  async diff(tenantId: string, datasetId: string, from: string, to: string) {
    await this.dataset(tenantId, datasetId);
    const at = async (version: string) => {
      const time = await this.resolve(tenantId, datasetId, version);
      const examples =
        time === undefined
          ? await this.storage.datasets.listExamples(tenantId, { datasetId, limit: ALL, offset: 0 })
          : await this.examples(tenantId, time, { datasetId, limit: ALL, offset: 0 });
      return new Map(examples.map((e) => [e.id, e.modified_at]));
    };
    const [before, after] = [await at(from), await at(to)];
    return {
      examples_added: [...after.keys()].filter((id) => !before.has(id)),
      examples_removed: [...before.keys()].filter((id) => !after.has(id)),
      examples_modified: [...after]
        .filter(([id, m]) => before.has(id) && before.get(id) !== m)
        .map(([id]) => id),
    };
  }

  private async withTags(tenantId: string, datasetId: string, versions: string[]): Promise<DatasetVersion[]> {
    const tags = await this.storage.datasetVersions.tags(tenantId, datasetId);
    return versions.map((as_of) => ({
      as_of,
      tags: tags.filter((t) => t.as_of === as_of).map((t) => t.tag),
    }));
  }
}

/** A time as versions are named (ISO, milliseconds, UTC); a time that does not parse is a 400. */
export function normalized(time: string): string {
  const ms = Date.parse(time);
  if (!TIMESTAMP.test(time) || Number.isNaN(ms)) {
    throw new BadRequestError(`${JSON.stringify(time.slice(0, 100))} is not a time (ISO 8601).`);
  }
  return new Date(ms).toISOString();
}
