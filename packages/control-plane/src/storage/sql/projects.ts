import type { Kysely } from "kysely";
import type { TracingProject } from "../../domain/types.js";
import type { TracingProjectStore } from "../types.js";
import { projectFromRow } from "./rows.js";
import type { ControlPlaneDb } from "./schema.js";

/** Tracing projects on Kysely (SQLite or PostgreSQL). */
export class SqlProjectStore implements TracingProjectStore {
  constructor(private readonly db: Kysely<ControlPlaneDb>) {}

  async list(
    tenantId: string,
    filter: { name?: string | undefined; limit: number; offset: number },
  ): Promise<TracingProject[]> {
    let query = this.db.selectFrom("tracing_projects").selectAll().where("tenant_id", "=", tenantId);
    if (filter.name !== undefined) query = query.where("name", "=", filter.name);
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
}
