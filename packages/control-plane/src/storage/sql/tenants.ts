import type { Kysely, Selectable } from "kysely";
import type { ApiKeyRecord, KeyDeletion, KeyRole, NewApiKey, Tenant, TenantStore } from "../types.js";
import type { ApiKeysTable, ControlPlaneDb } from "./schema.js";

function keyRecord(row: Selectable<ApiKeysTable>, tenantIds: string[]): ApiKeyRecord {
  return {
    id: row.id ?? row.key_hash.slice(0, 32),
    description: row.description,
    short_key: row.short_key,
    role: (row.role === "member" ? "member" : "admin") satisfies KeyRole,
    created_at: row.created_at,
    expires_at: row.expires_at,
    last_used_at: row.last_used_at,
    tenant_ids: tenantIds,
  };
}

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

  async list(ids?: readonly string[]): Promise<Tenant[]> {
    if (ids?.length === 0) return [];
    let query = this.db.selectFrom("tenants").selectAll();
    if (ids) query = query.where("id", "in", [...ids]);
    return query.orderBy("created_at").orderBy("id").execute();
  }

  async addKey(keyHash: string, tenantIds: string[], now: string, details?: NewApiKey): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto("api_keys")
        .values({
          key_hash: keyHash,
          created_at: now,
          id: details?.id ?? keyHash.slice(0, 32),
          description: details?.description ?? null,
          short_key: details?.short_key ?? null,
          role: details?.role ?? "admin",
          expires_at: details?.expires_at ?? null,
          last_used_at: null,
        })
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

  async keyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const row = await this.db
      .selectFrom("api_keys")
      .selectAll()
      .where("key_hash", "=", keyHash)
      .executeTakeFirst();
    return row ? keyRecord(row, await this.tenantsOfKey(keyHash)) : null;
  }

  async keysOfTenant(tenantId: string): Promise<ApiKeyRecord[]> {
    const rows = await this.db
      .selectFrom("api_keys")
      .innerJoin("api_key_tenants as mine", "mine.key_hash", "api_keys.key_hash")
      .selectAll("api_keys")
      .where("mine.tenant_id", "=", tenantId)
      .orderBy("api_keys.created_at", "desc")
      .orderBy("api_keys.key_hash")
      .execute();
    const links = rows.length
      ? await this.db
          .selectFrom("api_key_tenants")
          .select(["key_hash", "tenant_id"])
          .where(
            "key_hash",
            "in",
            rows.map((r) => r.key_hash),
          )
          .orderBy("tenant_id")
          .execute()
      : [];
    return rows.map((row) =>
      keyRecord(
        row,
        links.filter((l) => l.key_hash === row.key_hash).map((l) => l.tenant_id),
      ),
    );
  }

  async deleteKey(id: string, tenantId: string, reach: readonly string[]): Promise<KeyDeletion> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom("api_keys")
        .innerJoin("api_key_tenants", "api_key_tenants.key_hash", "api_keys.key_hash")
        .select("api_keys.key_hash")
        .where("api_keys.id", "=", id)
        .where("api_key_tenants.tenant_id", "=", tenantId)
        .executeTakeFirst();
      if (!row) return "not_found";
      const links = await trx
        .selectFrom("api_key_tenants")
        .select("tenant_id")
        .where("key_hash", "=", row.key_hash)
        .execute();
      if (links.some((link) => !reach.includes(link.tenant_id))) return "beyond_reach";
      await trx.deleteFrom("api_key_tenants").where("key_hash", "=", row.key_hash).execute();
      await trx.deleteFrom("api_keys").where("key_hash", "=", row.key_hash).execute();
      return "deleted";
    });
  }

  async touchKey(keyHash: string, now: string): Promise<void> {
    await this.db
      .updateTable("api_keys")
      .set({ last_used_at: now })
      .where("key_hash", "=", keyHash)
      .execute();
  }
}
