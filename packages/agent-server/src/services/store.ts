import type { StoreItem, StoreListNamespaces, StorePut, StoreSearch } from "@berth-platform/schemas";
import type { Logger } from "pino";
import type { ItemStore } from "../storage/types.js";

/**
 * Long-term memory use cases. Reads refresh an item's TTL unless asked not to (the official
 * store's `refresh_on_read` default). `index` and `query` are accepted but there is no semantic
 * index: search matches namespace prefix and filter only (docs/decisions.md).
 */
export class StoreService {
  constructor(private readonly items: ItemStore) {}

  put(body: StorePut): Promise<void> {
    return this.items.put(
      { namespace: body.namespace, key: body.key, value: body.value, ttlMinutes: body.ttl ?? null },
      Date.now(),
    );
  }

  async get(namespace: string[], key: string, refreshTtl: boolean | undefined): Promise<StoreItem | null> {
    return (
      (await this.items.get(namespace, key, { refreshTtl: refreshTtl ?? true, nowMs: Date.now() })) ?? null
    );
  }

  delete(namespace: string[], key: string): Promise<void> {
    return this.items.delete(namespace, key);
  }

  search(body: StoreSearch): Promise<StoreItem[]> {
    return this.items.search({
      prefix: body.namespace_prefix ?? [],
      filter: body.filter ?? null,
      limit: body.limit,
      offset: body.offset,
      refreshTtl: body.refresh_ttl ?? true,
      nowMs: Date.now(),
    });
  }

  listNamespaces(body: StoreListNamespaces): Promise<string[][]> {
    return this.items.listNamespaces({
      prefix: body.prefix?.length ? body.prefix : null,
      suffix: body.suffix?.length ? body.suffix : null,
      maxDepth: body.max_depth ?? null,
      limit: body.limit,
      offset: body.offset,
      nowMs: Date.now(),
    });
  }

  /** Deletes expired items every `intervalMs` (they are already invisible); returns the stop function. */
  startSweeper(intervalMs: number, logger: Logger): () => void {
    const timer = setInterval(() => {
      this.items.sweep(Date.now()).then(
        (n) => n > 0 && logger.debug({ items: n }, "expired store items swept"),
        (error: unknown) => logger.warn({ err: error }, "store sweep failed"),
      );
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}
