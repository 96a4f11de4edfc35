import type { Kysely } from "kysely";
import type { RevisionStatus } from "../../domain/revision-status.js";
import type { Revision, SourceRevisionConfig } from "../../domain/types.js";
import type { LatestRevisionStatus, RevisionStore } from "../types.js";
import type { RowCodec } from "./rows.js";
import type { ControlPlaneDb } from "./schema.js";

/** The revision store on Kysely (SQLite or PostgreSQL). */
export class SqlRevisionStore implements RevisionStore {
  constructor(
    private readonly db: Kysely<ControlPlaneDb>,
    private readonly codec: RowCodec,
  ) {}

  async list(
    tenantId: string,
    deploymentId: string,
    filter: { statuses?: string[] | undefined; limit: number; offset: number },
  ): Promise<Revision[]> {
    let query = this.db
      .selectFrom("revisions")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("deployment_id", "=", deploymentId);
    if (filter.statuses?.length) query = query.where("status", "in", filter.statuses);
    const rows = await query.orderBy("seq", "desc").limit(filter.limit).offset(filter.offset).execute();
    return rows.map((row) => this.codec.revisionFromRow(row));
  }

  async get(tenantId: string, deploymentId: string, id: string): Promise<Revision | undefined> {
    const row = await this.db
      .selectFrom("revisions")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("deployment_id", "=", deploymentId)
      .where("id", "=", id)
      .executeTakeFirst();
    return row ? this.codec.revisionFromRow(row) : undefined;
  }

  async setStatus(id: string, from: RevisionStatus, to: RevisionStatus, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable("revisions")
      .set({ status: to, updated_at: now })
      .where("id", "=", id)
      .where("status", "=", from)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async listWaiting(): Promise<Revision[]> {
    const rows = await this.db
      .selectFrom("revisions")
      .selectAll()
      .where("status", "in", ["CREATING", "QUEUED"])
      .orderBy("seq")
      .execute();
    return rows.map((row) => this.codec.revisionFromRow(row));
  }

  async countByStatus(): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom("revisions")
      .select(["status", (eb) => eb.fn.countAll<number>().as("n")])
      .groupBy("status")
      .execute();
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }

  async listInStatus(statuses: readonly RevisionStatus[]): Promise<Revision[]> {
    if (statuses.length === 0) return [];
    const rows = await this.db
      .selectFrom("revisions")
      .selectAll()
      .where("status", "in", [...statuses])
      .orderBy("seq")
      .execute();
    return rows.map((row) => this.codec.revisionFromRow(row));
  }

  async setSourceRevisionConfig(id: string, config: SourceRevisionConfig, now: string): Promise<void> {
    await this.db
      .updateTable("revisions")
      .set({ source_revision_config: JSON.stringify(config), updated_at: now })
      .where("id", "=", id)
      .execute();
  }

  async statusesOf(deploymentId: string): Promise<Array<{ id: string; status: RevisionStatus }>> {
    const rows = await this.db
      .selectFrom("revisions")
      .select(["id", "status"])
      .where("deployment_id", "=", deploymentId)
      .execute();
    return rows.map((row) => ({ id: row.id, status: row.status as RevisionStatus }));
  }

  async latestOf(tenantId: string, deploymentIds: readonly string[]): Promise<LatestRevisionStatus[]> {
    if (deploymentIds.length === 0) return [];
    const rows = await this.db
      .selectFrom("deployments as d")
      .innerJoin("revisions as r", "r.id", "d.latest_revision_id")
      .select(["d.id as deployment_id", "r.id as revision_id", "r.status", "r.updated_at"])
      .where("d.tenant_id", "=", tenantId)
      .where("d.id", "in", [...deploymentIds])
      .execute();
    return rows.map((row) => ({ ...row, status: row.status as RevisionStatus }));
  }
}
