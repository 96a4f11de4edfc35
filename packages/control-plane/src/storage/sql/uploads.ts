import type { Kysely } from "kysely";
import type { Upload, UploadStore } from "../types.js";
import type { ControlPlaneDb } from "./schema.js";

/** The upload slots on Kysely (SQLite or PostgreSQL). */
export class SqlUploadStore implements UploadStore {
  constructor(private readonly db: Kysely<ControlPlaneDb>) {}

  async create(upload: Upload): Promise<void> {
    await this.db.insertInto("uploads").values(upload).execute();
  }

  async byTokenHash(tokenHash: string): Promise<Upload | undefined> {
    return this.db.selectFrom("uploads").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
  }

  async complete(objectPath: string, size: number, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable("uploads")
      .set({ size, completed_at: now })
      .where("object_path", "=", objectPath)
      .where("completed_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async completedPaths(tenantId: string, deploymentId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom("uploads")
      .select("object_path")
      .where("tenant_id", "=", tenantId)
      .where("deployment_id", "=", deploymentId)
      .where("completed_at", "is not", null)
      .execute();
    return rows.map((r) => r.object_path);
  }
}
