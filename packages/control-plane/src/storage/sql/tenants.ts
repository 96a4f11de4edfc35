import type { Kysely } from "kysely";
import type { Tenant, TenantStore } from "../types.js";
import type { ControlPlaneDb } from "./schema.js";

/** Tenants and API keys on Kysely (SQLite or PostgreSQL). */
export class SqlTenantStore implements TenantStore {
  constructor(private readonly db: Kysely<ControlPlaneDb>) {}

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom("tenants")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async create(tenant: Tenant): Promise<void> {
    await this.db.insertInto("tenants").values(tenant).execute();
  }

  async addKey(keyHash: string, tenantIds: string[], now: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto("api_keys")
        .values({ key_hash: keyHash, created_at: now })
        .onConflict((oc) => oc.doNothing())
        .execute();
      for (const tenantId of tenantIds) {
        await trx
          .insertInto("api_key_tenants")
          .values({ key_hash: keyHash, tenant_id: tenantId })
          .onConflict((oc) => oc.doNothing())
          .execute();
      }
    });
  }

  async tenantsOfKey(keyHash: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom("api_key_tenants")
      .select("tenant_id")
      .where("key_hash", "=", keyHash)
      .orderBy("tenant_id")
      .execute();
    return rows.map((row) => row.tenant_id);
  }
}
