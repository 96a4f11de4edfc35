import type { SqlDialect } from "@berth-platform/server-kit";
import type { Kysely, Selectable } from "kysely";
import type { TracingProject } from "../../domain/types.js";
import type { TracingProjectStore } from "../types.js";
import type { TracingDb, TracingProjectsTable } from "./schema.js";

/** Tracing projects on Kysely (SQLite or PostgreSQL). */
export class SqlProjectStore implements TracingProjectStore {
  constructor(
    private readonly db: Kysely<TracingDb>,
    private readonly dialect: SqlDialect,
  ) {}

  async list(
    tenantId: string,
    filter: {
      name?: string | undefined;
      nameContains?: string | undefined;
      ids?: string[] | undefined;
      referenceDatasetIds?: string[] | undefined;
      limit: number;
      offset: number;
    },
  ): Promise<TracingProject[]> {
    let query = this.db.selectFrom("tracing_projects").selectAll().where("tenant_id", "=", tenantId);
    if (filter.name !== undefined) query = query.where("name", "=", filter.name);
    if (filter.nameContains) query = query.where(this.dialect.contains("name", filter.nameContains, true));
    if (filter.referenceDatasetIds) {
      if (filter.referenceDatasetIds.length === 0) return [];
      query = query.where("reference_dataset_id", "in", filter.referenceDatasetIds);
    }
    if (filter.ids) {
      if (filter.ids.length === 0) return [];
      query = query.where("id", "in", filter.ids);
    }
    const rows = await query.orderBy("seq", "desc").limit(filter.limit).offset(filter.offset).execute();
    return rows.map(projectFromRow);
  }

  async get(tenantId: string, id: string): Promise<TracingProject | undefined> {
    const row = await this.db
      .selectFrom("tracing_projects")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .executeTakeFirst();
    return row ? projectFromRow(row) : undefined;
  }

  async byName(tenantId: string, name: string): Promise<TracingProject | undefined> {
    const row = await this.db
      .selectFrom("tracing_projects")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("name", "=", name)
      .executeTakeFirst();
    return row ? projectFromRow(row) : undefined;
  }

  async ofDeployment(deploymentId: string): Promise<TracingProject | undefined> {
    const row = await this.db
      .selectFrom("tracing_projects")
      .selectAll()
      .where("deployment_id", "=", deploymentId)
      .executeTakeFirst();
    return row ? projectFromRow(row) : undefined;
  }

  async ensure(project: TracingProject): Promise<TracingProject> {
    try {
      await this.db.insertInto("tracing_projects").values(projectRow(project)).execute();
      return project;
    } catch (error) {
      if (!this.dialect.isUniqueViolation(error)) throw error;
      const existing = await this.byName(project.tenant_id, project.name);
      if (!existing) throw error;
      return existing;
    }
  }

  async create(project: TracingProject): Promise<boolean> {
    try {
      await this.db.insertInto("tracing_projects").values(projectRow(project)).execute();
      return true;
    } catch (error) {
      if (this.dialect.isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async update(project: TracingProject): Promise<boolean> {
    const { seq: _seq, tenant_id, id, created_at: _created, deployment_id: _d, ...row } = projectRow(project);
    try {
      await this.db
        .updateTable("tracing_projects")
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
        .deleteFrom("tracing_projects")
        .where("tenant_id", "=", tenantId)
        .where("id", "=", id)
        .executeTakeFirst();
      if (result.numDeletedRows === 0n) return false;
      // Its feedback goes with it: on its runs, and on the project itself (experiment summaries).
      await trx
        .deleteFrom("tracing_feedback")
        .where("tenant_id", "=", tenantId)
        .where((eb) =>
          eb.or([
            eb("session_id", "=", id),
            eb(
              "run_id",
              "in",
              eb
                .selectFrom("tracing_runs")
                .select("id")
                .where("tenant_id", "=", tenantId)
                .where("project_id", "=", id),
            ),
          ]),
        )
        .execute();
      await trx
        .deleteFrom("tracing_run_shares")
        .where("tenant_id", "=", tenantId)
        .where(
          "run_id",
          "in",
          trx
            .selectFrom("tracing_runs")
            .select("id")
            .where("tenant_id", "=", tenantId)
            .where("project_id", "=", id),
        )
        .execute();
      await trx
        .deleteFrom("tracing_runs")
        .where("tenant_id", "=", tenantId)
        .where("project_id", "=", id)
        .execute();
      return true;
    });
  }
}

/** Tracing project row → record. */
export function projectFromRow(row: Selectable<TracingProjectsTable>): TracingProject {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    name: row.name,
    deployment_id: row.deployment_id,
    created_at: row.created_at,
    // Only what was set: a project made by traces or with a deployment reads back as it was made.
    ...(row.description !== null ? { description: row.description } : {}),
    ...(row.extra !== null ? { metadata: parseObject(row.extra) } : {}),
    ...(row.reference_dataset_id !== null ? { reference_dataset_id: row.reference_dataset_id } : {}),
    ...(row.end_ms !== null ? { end_ms: Number(row.end_ms) } : {}),
  };
}

function projectRow(project: TracingProject) {
  return {
    seq: undefined,
    id: project.id,
    tenant_id: project.tenant_id,
    name: project.name,
    deployment_id: project.deployment_id,
    created_at: project.created_at,
    description: project.description ?? null,
    extra: project.metadata ? JSON.stringify(project.metadata) : null,
    reference_dataset_id: project.reference_dataset_id ?? null,
    end_ms: project.end_ms ?? null,
  };
}

/** A JSON object column (null when absent or not an object). */
export function parseObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
