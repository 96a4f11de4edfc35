import type { JsonObject } from "@berth-platform/schemas";
import {
  BaseStore,
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchOperation,
} from "@langchain/langgraph-checkpoint";
import type { ItemStore, StoredItem } from "./types.js";

function toItem(item: StoredItem): Item {
  return {
    namespace: item.namespace,
    key: item.key,
    value: item.value,
    createdAt: new Date(item.created_at),
    updatedAt: new Date(item.updated_at),
  };
}

/**
 * LangGraph's `BaseStore` over the server's item store, so graphs (`config.store`, `getStore()`)
 * and the `/store` API see the same items. Reads refresh TTLs, as the official store does by default.
 */
export class ItemStoreAdapter extends BaseStore {
  constructor(private readonly items: ItemStore) {
    super();
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    // In order: a put followed by a get in the same batch must see the put.
    for (const op of operations) results.push(await this.apply(op));
    return results as OperationResults<Op>;
  }

  private async apply(op: Operation): Promise<unknown> {
    const nowMs = Date.now();
    if ("namespacePrefix" in op) {
      const search = op as SearchOperation;
      const found = await this.items.search({
        prefix: search.namespacePrefix,
        filter: (search.filter as JsonObject | undefined) ?? null,
        limit: search.limit ?? 10,
        offset: search.offset ?? 0,
        refreshTtl: true,
        nowMs,
      });
      return found.map((item) => ({ ...toItem(item), score: undefined }));
    }
    if ("namespace" in op && "value" in op) {
      const put = op as PutOperation;
      if (put.value === null) return this.items.delete(put.namespace, put.key);
      return this.items.put(
        { namespace: put.namespace, key: put.key, value: put.value, ttlMinutes: null },
        nowMs,
      );
    }
    if ("namespace" in op) {
      const get = op as GetOperation;
      const item = await this.items.get(get.namespace, get.key, { refreshTtl: true, nowMs });
      return item ? toItem(item) : null;
    }
    const list = op as ListNamespacesOperation;
    const condition = (type: "prefix" | "suffix") =>
      list.matchConditions?.find((c) => c.matchType === type)?.path ?? null;
    return this.items.listNamespaces({
      prefix: condition("prefix"),
      suffix: condition("suffix"),
      maxDepth: list.maxDepth ?? null,
      limit: list.limit,
      offset: list.offset,
      nowMs,
    });
  }
}
