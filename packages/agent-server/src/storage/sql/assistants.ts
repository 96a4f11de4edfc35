import type { Assistant, JsonObject } from "@berth-platform/schemas";
import type { Kysely, Selectable, Transaction } from "kysely";
import { ConflictError } from "../../errors.js";
import type { AssistantFilter, AssistantStore, AssistantVersion, AssistantVersionFields } from "../types.js";
import { forUpdate, type SqlDialect } from "./dialect.js";
import { containsJson, parseJson } from "./json-match.js";
import type { AgentServerDb, AssistantsTable, AssistantVersionsTable } from "./schema.js";

function fromRow(row: Selectable<AssistantsTable>): Assistant {
  return {
    assistant_id: row.assistant_id,
    graph_id: row.graph_id,
    config: parseJson(row.config),
    context: parseJson(row.context),
    metadata: parseJson(row.metadata),
    name: row.name,
    description: row.description,
    version: row.version,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function versionFromRow(row: Selectable<AssistantVersionsTable>): AssistantVersion {
  return {
    assistant_id: row.assistant_id,
    version: row.version,
    graph_id: row.graph_id,
    config: parseJson(row.config),
    context: parseJson(row.context),
    metadata: parseJson(row.metadata),
    name: row.name,
    description: row.description,
    created_at: row.created_at,
  };
}

function fieldsToRow(fields: AssistantVersionFields) {
  return {
    graph_id: fields.graph_id,
    config: JSON.stringify(fields.config),
    context: JSON.stringify(fields.context),
    metadata: JSON.stringify(fields.metadata),
    name: fields.name,
    description: fields.description,
  };
}

type Trx = Transaction<AgentServerDb>;

/** The versioned assistant store on either dialect. */
export class SqlAssistantStore implements AssistantStore {
  constructor(
    private readonly db: Kysely<AgentServerDb>,
    private readonly dialect: SqlDialect,
  ) {}

  async upsertSystem(assistants: Assistant[]): Promise<void> {
    // Every API and worker process upserts at start-up, possibly at the same moment: only inserts
    // that win the id count.
    for (const a of assistants) await this.db.transaction().execute((trx) => insert(trx, a));
  }

  async create(assistant: Assistant, ifExists: "raise" | "do_nothing"): Promise<Assistant> {
    const inserted = await this.db.transaction().execute((trx) => insert(trx, assistant));
    if (inserted) return assistant;
    const existing = await this.get(assistant.assistant_id);
    if (ifExists === "do_nothing" && existing) return existing;
    throw new ConflictError(`Assistant ${assistant.assistant_id} already exists`);
  }

  async get(assistantId: string): Promise<Assistant | undefined> {
    const row = await this.db
      .selectFrom("assistants")
      .selectAll()
      .where("assistant_id", "=", assistantId)
      .executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  async patch(assistantId: string, changes: Partial<AssistantVersionFields>): Promise<Assistant | undefined> {
    return this.db.transaction().execute(async (trx) => {
      // Locked: two patches at once would both number their version max + 1.
      const row = await forUpdate(
        trx.selectFrom("assistants").selectAll().where("assistant_id", "=", assistantId),
        this.dialect,
      ).executeTakeFirst();
      if (!row) return undefined;
      const current = fromRow(row);
      const last = await trx
        .selectFrom("assistant_versions")
        .select((eb) => eb.fn.max("version").as("v"))
        .where("assistant_id", "=", assistantId)
        .executeTakeFirst();
      const now = new Date().toISOString();
      const next: Assistant = {
        ...current,
        ...changes,
        // Metadata is merged, as the official server does; config and context are replaced.
        metadata: { ...current.metadata, ...(changes.metadata ?? {}) },
        version: Number(last?.v ?? current.version) + 1,
        updated_at: now,
      };
      await trx
        .insertInto("assistant_versions")
        .values({ assistant_id: assistantId, version: next.version, created_at: now, ...fieldsToRow(next) })
        .execute();
      await trx
        .updateTable("assistants")
        .set({ ...fieldsToRow(next), version: next.version, updated_at: now })
        .where("assistant_id", "=", assistantId)
        .execute();
      return next;
    });
  }

  async delete(assistantId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom("assistants")
      .where("assistant_id", "=", assistantId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async search(filter: Parameters<AssistantStore["search"]>[0]): Promise<Assistant[]> {
    const sortBy = (filter.sort_by ?? "created_at") as keyof AssistantsTable;
    const rows = await this.filtered(filter)
      .orderBy(sortBy, filter.sort_order ?? "desc")
      .orderBy("assistant_id")
      .execute();
    // Assistants are few; metadata containment is checked here rather than in SQL.
    return rows
      .map(fromRow)
      .filter((a) => !filter.metadata || containsJson(a.metadata, filter.metadata))
      .slice(filter.offset, filter.offset + filter.limit);
  }

  async count(filter: AssistantFilter): Promise<number> {
    const rows = await this.filtered(filter).execute();
    return rows.map(fromRow).filter((a) => !filter.metadata || containsJson(a.metadata, filter.metadata))
      .length;
  }

  private filtered(filter: AssistantFilter) {
    let query = this.db.selectFrom("assistants").selectAll();
    if (filter.graph_id) query = query.where("graph_id", "=", filter.graph_id);
    if (filter.name) query = query.where(this.dialect.containsIgnoreCase("name", filter.name));
    return query;
  }

  async versions(
    assistantId: string,
    options: { metadata?: JsonObject | null | undefined; limit: number; offset: number },
  ): Promise<AssistantVersion[]> {
    const rows = await this.db
      .selectFrom("assistant_versions")
      .selectAll()
      .where("assistant_id", "=", assistantId)
      .orderBy("version", "desc")
      .execute();
    return rows
      .map(versionFromRow)
      .filter((v) => !options.metadata || containsJson(v.metadata, options.metadata))
      .slice(options.offset, options.offset + options.limit);
  }

  async setLatest(assistantId: string, version: number): Promise<Assistant | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom("assistant_versions")
        .selectAll()
        .where("assistant_id", "=", assistantId)
        .where("version", "=", version)
        .executeTakeFirst();
      if (!row) return undefined;
      const now = new Date().toISOString();
      await trx
        .updateTable("assistants")
        .set({ ...fieldsToRow(versionFromRow(row)), version, updated_at: now })
        .where("assistant_id", "=", assistantId)
        .execute();
      const updated = await trx
        .selectFrom("assistants")
        .selectAll()
        .where("assistant_id", "=", assistantId)
        .executeTakeFirst();
      return updated ? fromRow(updated) : undefined;
    });
  }
}

/** Inserts an assistant and its first version; false (nothing written) when the id is taken. */
async function insert(trx: Trx, a: Assistant): Promise<boolean> {
  const inserted = await trx
    .insertInto("assistants")
    .values({
      ...fieldsToRow(a),
      assistant_id: a.assistant_id,
      version: a.version,
      created_at: a.created_at,
      updated_at: a.updated_at,
    })
    .onConflict((oc) => oc.column("assistant_id").doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
  await trx
    .insertInto("assistant_versions")
    .values({ ...fieldsToRow(a), assistant_id: a.assistant_id, version: a.version, created_at: a.created_at })
    .execute();
  return true;
}
