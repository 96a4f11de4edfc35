import type { JsonObject } from "@berth-platform/schemas";
import type { ExpressionBuilder, Kysely, Selectable } from "kysely";
import { matchesFilter, selectNamespaces } from "../../domain/store-match.js";
import type { ItemStore, StoredItem } from "../types.js";
import { parseJson } from "./json-match.js";
import type { AgentServerDb, StoreItemsTable } from "./schema.js";

// Labels may not contain ".", so the joined form is unambiguous and prefixes are string prefixes.
const SEP = ".";
const MINUTE_MS = 60_000;

function fromRow(row: Selectable<StoreItemsTable>): StoredItem {
  return {
    namespace: row.namespace === "" ? [] : row.namespace.split(SEP),
    key: row.key,
    value: parseJson<JsonObject>(row.value),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function unexpired(nowMs: number) {
  return (eb: ExpressionBuilder<AgentServerDb, "store_items">) =>
    eb.or([eb("expires_at", "is", null), eb("expires_at", ">", nowMs)]);
}

function underPrefix(prefix: string[]) {
  const joined = prefix.join(SEP);
  return (eb: ExpressionBuilder<AgentServerDb, "store_items">) =>
    eb.or([
      eb("namespace", "=", joined),
      eb(eb.fn("substr", ["namespace", eb.val(1), eb.val(joined.length + 1)]), "=", joined + SEP),
    ]);
}

/** The long-term memory store on either dialect. */
export class SqlItemStore implements ItemStore {
  constructor(private readonly db: Kysely<AgentServerDb>) {}

  async put(
    item: { namespace: string[]; key: string; value: JsonObject; ttlMinutes: number | null },
    nowMs: number,
  ): Promise<void> {
    const now = new Date(nowMs).toISOString();
    const expires = item.ttlMinutes === null ? null : nowMs + Math.round(item.ttlMinutes * MINUTE_MS);
    const value = JSON.stringify(item.value);
    await this.db
      .insertInto("store_items")
      .values({
        namespace: item.namespace.join(SEP),
        key: item.key,
        value,
        created_at: now,
        updated_at: now,
        ttl_minutes: item.ttlMinutes,
        expires_at: expires,
      })
      .onConflict((oc) =>
        oc.columns(["namespace", "key"]).doUpdateSet({
          value,
          updated_at: now,
          ttl_minutes: item.ttlMinutes,
          expires_at: expires,
          // An expired item that is written again starts afresh.
          created_at: (eb) =>
            eb
              .case()
              .when(
                eb.and([
                  eb("store_items.expires_at", "is not", null),
                  eb("store_items.expires_at", "<=", nowMs),
                ]),
              )
              .then(now)
              .else(eb.ref("store_items.created_at"))
              .end(),
        }),
      )
      .execute();
  }

  async get(
    namespace: string[],
    key: string,
    options: { refreshTtl: boolean; nowMs: number },
  ): Promise<StoredItem | undefined> {
    const row = await this.db
      .selectFrom("store_items")
      .selectAll()
      .where("namespace", "=", namespace.join(SEP))
      .where("key", "=", key)
      .where(unexpired(options.nowMs))
      .executeTakeFirst();
    if (!row) return undefined;
    if (options.refreshTtl) await this.refresh([row], options.nowMs);
    return fromRow(row);
  }

  async delete(namespace: string[], key: string): Promise<void> {
    await this.db
      .deleteFrom("store_items")
      .where("namespace", "=", namespace.join(SEP))
      .where("key", "=", key)
      .execute();
  }

  async search(query: Parameters<ItemStore["search"]>[0]): Promise<StoredItem[]> {
    let select = this.db.selectFrom("store_items").selectAll().where(unexpired(query.nowMs));
    if (query.prefix.length) select = select.where(underPrefix(query.prefix));
    select = select.orderBy("updated_at", "desc").orderBy("namespace").orderBy("key");
    let rows: Selectable<StoreItemsTable>[];
    if (query.filter && Object.keys(query.filter).length) {
      // Filters (with operators) are evaluated here; the namespace prefix narrows the rows in SQL.
      const filter = query.filter;
      rows = (await select.execute())
        .filter((row) => matchesFilter(parseJson<JsonObject>(row.value), filter))
        .slice(query.offset, query.offset + query.limit);
    } else {
      rows = await select.limit(query.limit).offset(query.offset).execute();
    }
    if (query.refreshTtl) await this.refresh(rows, query.nowMs);
    return rows.map(fromRow);
  }

  async listNamespaces(query: Parameters<ItemStore["listNamespaces"]>[0]): Promise<string[][]> {
    let select = this.db
      .selectFrom("store_items")
      .select("namespace")
      .distinct()
      .where(unexpired(query.nowMs));
    // A prefix without wildcards narrows in SQL; wildcards and suffixes are matched afterwards.
    const star = query.prefix?.indexOf("*") ?? -1;
    const fixed = query.prefix ? (star === -1 ? query.prefix : query.prefix.slice(0, star)) : [];
    if (fixed.length) select = select.where(underPrefix(fixed));
    const rows = await select.execute();
    return selectNamespaces(
      rows.map((r) => (r.namespace === "" ? [] : r.namespace.split(SEP))),
      query,
    );
  }

  async sweep(nowMs: number): Promise<number> {
    const result = await this.db
      .deleteFrom("store_items")
      .where("expires_at", "is not", null)
      .where("expires_at", "<=", nowMs)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  private async refresh(rows: Selectable<StoreItemsTable>[], nowMs: number): Promise<void> {
    const withTtl = rows.filter((r) => r.ttl_minutes !== null);
    if (!withTtl.length) return;
    await this.db.transaction().execute(async (trx) => {
      for (const row of withTtl) {
        await trx
          .updateTable("store_items")
          .set({ expires_at: nowMs + Math.round((row.ttl_minutes ?? 0) * MINUTE_MS) })
          .where("namespace", "=", row.namespace)
          .where("key", "=", row.key)
          .execute();
      }
    });
  }
}
