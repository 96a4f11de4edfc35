import type { SqlDialect } from "@berth-platform/server-kit";
import { type Kysely, type Selectable, sql, type Transaction } from "kysely";
import type { Example } from "../../domain/sdk-types.js";
import { SPLIT_KEY } from "../../domain/splits.js";
import type { DatasetVersionStore, ExampleFilter } from "../sdk-types.js";
import { type JsonContains, jsonContainsOf } from "./json-filter.js";
import { parseObject } from "./projects.js";
import { parseJsonText } from "./run-rows.js";
import type { TracingDb, TracingExampleVersionsTable } from "./schema.js";

const CHUNK = 200;

/**
 * Records examples' new states (or their removal) as the dataset version stamped `version_at`:
 * their modified_at, or the removal's time. Called in the transaction that changes them.
 */
export async function recordVersions(
  trx: Transaction<TracingDb>,
  examples: readonly Example[],
  removedAt?: string,
): Promise<void> {
  for (let i = 0; i < examples.length; i += CHUNK) {
    await trx
      .insertInto("tracing_example_versions")
      .values(
        examples.slice(i, i + CHUNK).map((e) => ({
          tenant_id: e.tenant_id,
          dataset_id: e.dataset_id,
          example_id: e.id,
          version_at: removedAt ?? e.modified_at,
          deleted: removedAt ? 1 : 0,
          inputs: removedAt ? null : JSON.stringify(e.inputs ?? {}),
          outputs:
            removedAt || e.outputs === undefined || e.outputs === null ? null : JSON.stringify(e.outputs),
          metadata: !removedAt && e.metadata ? JSON.stringify(e.metadata) : null,
          source_run_id: e.source_run_id,
          created_at: e.created_at,
          modified_at: removedAt ?? e.modified_at,
        })),
      )
      .execute();
  }
}

/** A dataset's versions and tags, and its examples as of a version (Kysely, either dialect). */
export class SqlDatasetVersionStore implements DatasetVersionStore {
  private readonly jsonContains: JsonContains;

  constructor(
    private readonly db: Kysely<TracingDb>,
    dialect: SqlDialect,
  ) {
    this.jsonContains = jsonContainsOf(dialect);
  }

  async list(
    tenantId: string,
    datasetId: string,
    filter: { search?: string | undefined; limit: number; offset: number },
  ): Promise<string[]> {
    let query = this.db
      .selectFrom("tracing_example_versions")
      .select("version_at")
      .where("tenant_id", "=", tenantId)
      .where("dataset_id", "=", datasetId);
    if (filter.search !== undefined) {
      const search = filter.search.toLowerCase();
      const tagged = (await this.tags(tenantId, datasetId))
        .filter((t) => t.tag.toLowerCase().includes(search))
        .map((t) => t.as_of);
      if (tagged.length === 0) return [];
      query = query.where("version_at", "in", tagged);
    }
    const rows = await query
      .groupBy("version_at")
      .orderBy("version_at", "desc")
      .limit(filter.limit)
      .offset(filter.offset)
      .execute();
    return rows.map((r) => r.version_at);
  }

  async at(tenantId: string, datasetId: string, asOf?: string): Promise<string | undefined> {
    let query = this.db
      .selectFrom("tracing_example_versions")
      .select((eb) => eb.fn.max("version_at").as("v"))
      .where("tenant_id", "=", tenantId)
      .where("dataset_id", "=", datasetId);
    if (asOf !== undefined) query = query.where("version_at", "<=", asOf);
    const row = await query.executeTakeFirst();
    return row?.v ?? undefined;
  }

  async tags(tenantId: string, datasetId: string): Promise<Array<{ tag: string; as_of: string }>> {
    return this.db
      .selectFrom("tracing_dataset_tags")
      .select(["tag", "as_of"])
      .where("tenant_id", "=", tenantId)
      .where("dataset_id", "=", datasetId)
      .orderBy("tag")
      .execute();
  }

  async setTag(tenantId: string, datasetId: string, tag: string, asOf: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom("tracing_dataset_tags")
        .where("tenant_id", "=", tenantId)
        .where("dataset_id", "=", datasetId)
        .where("tag", "=", tag)
        .execute();
      await trx
        .insertInto("tracing_dataset_tags")
        .values({ tenant_id: tenantId, dataset_id: datasetId, tag, as_of: asOf })
        .execute();
    });
  }

  async examplesAt(
    tenantId: string,
    asOf: string,
    filter: ExampleFilter & { datasetId: string },
  ): Promise<Example[]> {
    let query = this.db
      .selectFrom("tracing_example_versions as v")
      .selectAll("v")
      .where("v.tenant_id", "=", tenantId)
      .where("v.dataset_id", "=", filter.datasetId)
      .where("v.version_at", "<=", asOf)
      .where("v.deleted", "=", 0)
      // The example's last state at or before the version.
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("tracing_example_versions as w")
              .select("w.seq")
              .whereRef("w.tenant_id", "=", "v.tenant_id")
              .whereRef("w.example_id", "=", "v.example_id")
              .where("w.version_at", "<=", asOf)
              .whereRef("w.seq", ">", "v.seq"),
          ),
        ),
      );
    if (filter.ids) {
      if (filter.ids.length === 0) return [];
      query = query.where("v.example_id", "in", filter.ids);
    }
    const splits = filter.splits;
    if (splits) {
      if (splits.length === 0) return [];
      query = query.where((eb) =>
        eb.or(splits.map((split) => this.jsonContains("v.metadata", { [SPLIT_KEY]: [split] }))),
      );
    }
    if (filter.metadata) query = query.where(this.jsonContains("v.metadata", filter.metadata));
    // In the order the examples were added, as the latest version lists them.
    const rows = await query
      .orderBy(
        sql`(select min(f.seq) from tracing_example_versions f
          where f.tenant_id = v.tenant_id and f.example_id = v.example_id)`,
      )
      .limit(filter.limit)
      .offset(filter.offset)
      .execute();
    return rows.map(exampleOfVersion);
  }
}

function exampleOfVersion(row: Selectable<TracingExampleVersionsTable>): Example {
  return {
    id: row.example_id,
    tenant_id: row.tenant_id,
    dataset_id: row.dataset_id,
    inputs: parseJsonText(row.inputs) ?? {},
    outputs: parseJsonText(row.outputs),
    metadata: parseObject(row.metadata),
    source_run_id: row.source_run_id,
    created_at: row.created_at,
    modified_at: row.modified_at,
  };
}
