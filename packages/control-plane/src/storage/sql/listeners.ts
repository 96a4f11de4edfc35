import type { Kysely, Selectable } from "kysely";
import type { Listener } from "../../domain/types.js";
import { ConflictError } from "../../errors.js";
import type { ListenerStore } from "../types.js";
import type { SqlDialect } from "./dialect.js";
import { parseJson } from "./rows.js";
import type { ControlPlaneDb, ListenersTable } from "./schema.js";

function fromRow(row: Selectable<ListenersTable>): Listener {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    version: row.version,
    compute_type: "cluster",
    compute_id: row.compute_id,
    compute_config: parseJson(row.compute_config),
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_seen_at: row.last_seen_at ?? null,
    vocabulary: row.vocabulary === "real" ? "real" : "neutral",
  };
}

/** The listener store on Kysely (SQLite or PostgreSQL). */
export class SqlListenerStore implements ListenerStore {
  constructor(
    private readonly db: Kysely<ControlPlaneDb>,
    private readonly dialect: SqlDialect,
  ) {}

  async create(l: Listener, keyHash: string): Promise<void> {
    try {
      await this.db
        .insertInto("listeners")
        .values({ ...l, compute_config: JSON.stringify(l.compute_config), key_hash: keyHash })
        .execute();
    } catch (error) {
      if (this.dialect.isUniqueViolation(error)) {
        throw new ConflictError(
          `Listener for LangSmith workspace ID '${l.tenant_id}' and compute ID '${l.compute_id}' already exists.`,
        );
      }
      throw error;
    }
  }

  async list(tenantId: string, options: { limit: number; offset: number }): Promise<Listener[]> {
    const rows = await this.db
      .selectFrom("listeners")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .orderBy("seq", "desc")
      .limit(options.limit)
      .offset(options.offset)
      .execute();
    return rows.map(fromRow);
  }

  async get(tenantId: string, id: string): Promise<Listener | undefined> {
    const row = await this.db
      .selectFrom("listeners")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  async byIdWithKey(id: string): Promise<{ listener: Listener; keyHash: string | null } | undefined> {
    const row = await this.db.selectFrom("listeners").selectAll().where("id", "=", id).executeTakeFirst();
    return row ? { listener: fromRow(row), keyHash: row.key_hash ?? null } : undefined;
  }

  async setKeyHash(tenantId: string, id: string, keyHash: string, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable("listeners")
      .set({ key_hash: keyHash, updated_at: now })
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async touch(id: string, now: string): Promise<void> {
    await this.db.updateTable("listeners").set({ last_seen_at: now }).where("id", "=", id).execute();
  }

  async update(l: Listener): Promise<void> {
    await this.db
      .updateTable("listeners")
      .set({ version: l.version, compute_config: JSON.stringify(l.compute_config), updated_at: l.updated_at })
      .where("tenant_id", "=", l.tenant_id)
      .where("id", "=", l.id)
      .execute();
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom("listeners")
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
