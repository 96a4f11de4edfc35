import type { Assistant } from "@berth/schemas";
import type { Kysely, Selectable } from "kysely";
import type { AssistantStore } from "../types.js";
import { parseJson } from "./database.js";
import { containsJson } from "./json-match.js";
import type { AgentServerDb, AssistantsTable } from "./schema.js";

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

/** SQLite implementation of the assistant store. */
export class SqliteAssistantStore implements AssistantStore {
  constructor(private readonly db: Kysely<AgentServerDb>) {}

  async upsertSystem(assistants: Assistant[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const a of assistants) {
        await trx
          .insertInto("assistants")
          .values({
            ...a,
            config: JSON.stringify(a.config),
            context: JSON.stringify(a.context),
            metadata: JSON.stringify(a.metadata),
          })
          .onConflict((oc) =>
            oc.column("assistant_id").doUpdateSet({
              graph_id: a.graph_id,
              config: JSON.stringify(a.config),
              context: JSON.stringify(a.context),
              name: a.name,
              description: a.description,
            }),
          )
          .execute();
      }
    });
  }

  async get(assistantId: string): Promise<Assistant | undefined> {
    const row = await this.db
      .selectFrom("assistants")
      .selectAll()
      .where("assistant_id", "=", assistantId)
      .executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  async search(filter: Parameters<AssistantStore["search"]>[0]): Promise<Assistant[]> {
    let query = this.db.selectFrom("assistants").selectAll();
    if (filter.graph_id) query = query.where("graph_id", "=", filter.graph_id);
    if (filter.name) query = query.where("name", "like", `%${filter.name.replace(/[\\%_]/g, "\\$&")}%`);
    const sortBy = (filter.sort_by ?? "created_at") as keyof AssistantsTable;
    const rows = await query
      .orderBy(sortBy, filter.sort_order ?? "desc")
      .orderBy("assistant_id")
      .execute();
    // Assistants are few; metadata containment is checked here rather than in SQL.
    return rows
      .map(fromRow)
      .filter((a) => !filter.metadata || containsJson(a.metadata, filter.metadata))
      .slice(filter.offset, filter.offset + filter.limit);
  }
}
