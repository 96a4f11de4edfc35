import type { SqlDialect } from "@berth-platform/server-kit";
import type { Kysely, Selectable } from "kysely";
import type { Dataset, Example } from "../../domain/sdk-types.js";
import { SPLIT_KEY } from "../../domain/splits.js";
import type { DatasetStore, ExampleFilter } from "../sdk-types.js";
import { recordVersions } from "./dataset-versions.js";
import { type JsonContains, jsonContainsOf } from "./json-filter.js";
import { parseObject } from "./projects.js";
import { parseJsonText } from "./run-rows.js";
import type { TracingDatasetsTable, TracingDb, TracingExamplesTable } from "./schema.js";

const CHUNK = 200;

/** Datasets and examples on Kysely (SQLite or PostgreSQL). */
export class SqlDatasetStore implements DatasetStore {
  private readonly jsonContains: JsonContains;

  constructor(
    private readonly db: Kysely<TracingDb>,
    private readonly dialect: SqlDialect,
  ) {
    this.jsonContains = jsonContainsOf(dialect);
  }

  async create(dataset: Dataset): Promise<boolean> {
    try {
      await this.db.insertInto("tracing_datasets").values(datasetRow(dataset)).execute();
      return true;
    } catch (error) {
      if (this.dialect.isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async get(tenantId: string, id: string): Promise<Dataset | undefined> {
    const row = await this.db
      .selectFrom("tracing_datasets")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .executeTakeFirst();
    return row ? datasetOf(row) : undefined;
  }

  async list(
    tenantId: string,
    filter: {
      ids?: string[] | undefined;
      name?: string | undefined;
      nameContains?: string | undefined;
      metadata?: Record<string, unknown> | undefined;
      limit: number;
      offset: number;
    },
  ): Promise<Array<Dataset & { example_count: number }>> {
    let query = this.db
      .selectFrom("tracing_datasets as d")
      .selectAll("d")
      .select((eb) =>
        eb
          .selectFrom("tracing_examples as e")
          .select(eb.fn.countAll<number>().as("n"))
          .whereRef("e.dataset_id", "=", "d.id")
          .as("example_count"),
      )
      .where("d.tenant_id", "=", tenantId);
    if (filter.ids) {
      if (filter.ids.length === 0) return [];
      query = query.where("d.id", "in", filter.ids);
    }
    if (filter.name !== undefined) query = query.where("d.name", "=", filter.name);
    if (filter.nameContains) query = query.where(this.dialect.contains("d.name", filter.nameContains, true));
    if (filter.metadata) query = query.where(this.jsonContains("d.metadata", filter.metadata));
    const rows = await query.orderBy("d.seq", "desc").limit(filter.limit).offset(filter.offset).execute();
    return rows.map((row) => ({ ...datasetOf(row), example_count: Number(row.example_count ?? 0) }));
  }

  async update(dataset: Dataset): Promise<boolean> {
    const { tenant_id, id, created_at: _c, ...row } = datasetRow(dataset);
    try {
      await this.db
        .updateTable("tracing_datasets")
        .set(row)
        .where("tenant_id", "=", tenant_id)
        .where("id", "=", id)
        .execute();
      return true;
    } catch (error) {
      if (this.dialect.isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async remove(tenantId: string, id: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .deleteFrom("tracing_datasets")
        .where("tenant_id", "=", tenantId)
        .where("id", "=", id)
        .executeTakeFirst();
      if (result.numDeletedRows === 0n) return false;
      for (const table of ["tracing_examples", "tracing_example_versions", "tracing_dataset_tags"] as const) {
        await trx.deleteFrom(table).where("tenant_id", "=", tenantId).where("dataset_id", "=", id).execute();
      }
      return true;
    });
  }

  async addExamples(examples: Example[]): Promise<boolean> {
    try {
      await this.db.transaction().execute(async (trx) => {
        for (let i = 0; i < examples.length; i += CHUNK) {
          await trx
            .insertInto("tracing_examples")
            .values(examples.slice(i, i + CHUNK).map(exampleRow))
            .execute();
        }
        await recordVersions(trx, examples);
      });
      return true;
    } catch (error) {
      if (this.dialect.isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async getExample(tenantId: string, id: string): Promise<Example | undefined> {
    const row = await this.db
      .selectFrom("tracing_examples")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .executeTakeFirst();
    return row ? exampleOf(row) : undefined;
  }

  async listExamples(tenantId: string, filter: ExampleFilter): Promise<Example[]> {
    let query = this.db.selectFrom("tracing_examples").selectAll().where("tenant_id", "=", tenantId);
    if (filter.datasetId !== undefined) query = query.where("dataset_id", "=", filter.datasetId);
    if (filter.ids) {
      if (filter.ids.length === 0) return [];
      query = query.where("id", "in", filter.ids);
    }
    const splits = filter.splits;
    if (splits) {
      if (splits.length === 0) return [];
      query = query.where((eb) =>
        eb.or(splits.map((split) => this.jsonContains("metadata", { [SPLIT_KEY]: [split] }))),
      );
    }
    if (filter.metadata) query = query.where(this.jsonContains("metadata", filter.metadata));
    const rows = await query.orderBy("seq").limit(filter.limit).offset(filter.offset).execute();
    return rows.map(exampleOf);
  }

  async getExamples(tenantId: string, ids: string[]): Promise<Example[]> {
    const out: Example[] = [];
    for (let i = 0; i < ids.length; i += CHUNK) {
      const rows = await this.db
        .selectFrom("tracing_examples")
        .selectAll()
        .where("tenant_id", "=", tenantId)
        .where("id", "in", ids.slice(i, i + CHUNK))
        .execute();
      out.push(...rows.map(exampleOf));
    }
    return out;
  }

  async updateExamples(examples: Example[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const example of examples) {
        const { inputs, outputs, metadata, modified_at } = exampleRow(example);
        await trx
          .updateTable("tracing_examples")
          .set({ inputs, outputs, metadata, modified_at })
          .where("tenant_id", "=", example.tenant_id)
          .where("id", "=", example.id)
          .execute();
      }
      await recordVersions(trx, examples);
    });
  }

  async exampleMetadata(tenantId: string, datasetId: string): Promise<Array<Record<string, unknown> | null>> {
    const rows = await this.db
      .selectFrom("tracing_examples")
      .select("metadata")
      .where("tenant_id", "=", tenantId)
      .where("dataset_id", "=", datasetId)
      .execute();
    return rows.map((row) => parseObject(row.metadata));
  }

  async removeExamples(examples: Example[], at: string, purge: boolean): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < examples.length; i += CHUNK) {
        for (const tenantId of new Set(examples.slice(i, i + CHUNK).map((e) => e.tenant_id))) {
          const ids = examples
            .slice(i, i + CHUNK)
            .filter((e) => e.tenant_id === tenantId)
            .map((e) => e.id);
          await trx
            .deleteFrom("tracing_examples")
            .where("tenant_id", "=", tenantId)
            .where("id", "in", ids)
            .execute();
          if (purge) {
            await trx
              .deleteFrom("tracing_example_versions")
              .where("tenant_id", "=", tenantId)
              .where("example_id", "in", ids)
              .execute();
          }
        }
      }
      if (!purge) await recordVersions(trx, examples, at);
    });
  }

  async exampleCount(tenantId: string, datasetId: string): Promise<number> {
    const row = await this.db
      .selectFrom("tracing_examples")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("tenant_id", "=", tenantId)
      .where("dataset_id", "=", datasetId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}

function datasetRow(d: Dataset) {
  return {
    tenant_id: d.tenant_id,
    id: d.id,
    name: d.name,
    description: d.description,
    data_type: d.data_type,
    metadata: d.metadata ? JSON.stringify(d.metadata) : null,
    created_at: d.created_at,
    modified_at: d.modified_at,
  };
}

function datasetOf(row: Selectable<TracingDatasetsTable>): Dataset {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    name: row.name,
    description: row.description,
    data_type: row.data_type,
    metadata: parseObject(row.metadata),
    created_at: row.created_at,
    modified_at: row.modified_at,
  };
}

function exampleRow(e: Example) {
  return {
    tenant_id: e.tenant_id,
    id: e.id,
    dataset_id: e.dataset_id,
    inputs: JSON.stringify(e.inputs ?? {}),
    outputs: e.outputs === undefined || e.outputs === null ? null : JSON.stringify(e.outputs),
    metadata: e.metadata ? JSON.stringify(e.metadata) : null,
    source_run_id: e.source_run_id,
    created_at: e.created_at,
    modified_at: e.modified_at,
  };
}

function exampleOf(row: Selectable<TracingExamplesTable>): Example {
  return {
    id: row.id,
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
