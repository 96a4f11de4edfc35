// The item store (through LangGraph's BaseStore interface) and the cron store's claim, on every
// storage adapter.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { newThread } from "../src/domain/thread-record.js";
import { ItemStoreAdapter } from "../src/storage/langgraph-store.js";
import type { CronRecord } from "../src/storage/types.js";
import { freshBackend, type StorageTarget } from "./storage-target.js";

function cron(id: string, nextRunAt: number | null, enabled = true): CronRecord {
  const now = new Date().toISOString();
  return {
    cron_id: id,
    assistant_id: "a",
    thread_id: null,
    user_id: null,
    schedule: "* * * * *",
    timezone: "UTC",
    end_time: null,
    payload: {},
    metadata: {},
    enabled,
    on_run_completed: "delete",
    next_run_at: nextRunAt,
    created_at: now,
    updated_at: now,
  };
}

/** The item and cron stores' cases on `target`. */
export function itemAndCronCases(target: StorageTarget): void {
  describe(`item store as a LangGraph BaseStore: ${target.name}`, () => {
    it("puts, gets, searches, lists and deletes through batch", async () => {
      const backend = await freshBackend(target, after);
      const store = new ItemStoreAdapter(backend.storage.items);
      await store.put(["users", "u1"], "prefs", { theme: "dark" });
      await store.put(["users", "u2"], "prefs", { theme: "light" });
      const item = await store.get(["users", "u1"], "prefs");
      assert.deepEqual(item?.value, { theme: "dark" });
      assert.ok(item?.createdAt instanceof Date);
      const found = await store.search(["users"], { filter: { theme: "light" } });
      assert.deepEqual(
        found.map((i) => i.namespace),
        [["users", "u2"]],
      );
      assert.deepEqual(await store.listNamespaces({ prefix: ["users"] }), [
        ["users", "u1"],
        ["users", "u2"],
      ]);
      await store.delete(["users", "u1"], "prefs");
      assert.equal(await store.get(["users", "u1"], "prefs"), null);
      // The HTTP side reads the same rows.
      const viaPort = await backend.storage.items.get(["users", "u2"], "prefs", {
        refreshTtl: false,
        nowMs: Date.now(),
      });
      assert.deepEqual(viaPort?.value, { theme: "light" });
    });

    it("expired items are invisible, then swept", async () => {
      const backend = await freshBackend(target, after);
      const items = backend.storage.items;
      const t0 = Date.now();
      await items.put({ namespace: ["n"], key: "k", value: {}, ttlMinutes: 1 }, t0);
      assert.ok(await items.get(["n"], "k", { refreshTtl: false, nowMs: t0 + 59_000 }));
      assert.equal(await items.get(["n"], "k", { refreshTtl: false, nowMs: t0 + 60_000 }), undefined);
      assert.deepEqual(
        await items.listNamespaces({
          prefix: null,
          suffix: null,
          maxDepth: null,
          limit: 10,
          offset: 0,
          nowMs: t0 + 60_000,
        }),
        [],
      );
      assert.equal(await items.sweep(t0 + 59_000), 0);
      assert.equal(await items.sweep(t0 + 60_000), 1);
    });
  });

  describe(`cron store: ${target.name}`, () => {
    it("hands each due occurrence out once, even after a restart", async () => {
      const key = await target.fresh();
      const first = await target.open(key);
      const t0 = Date.now();
      await first.storage.crons.create(cron("due", t0 - 1000));
      await first.storage.crons.create(cron("later", t0 + 60_000));
      await first.storage.crons.create(cron("off", t0 - 1000, false));
      await first.storage.crons.create(cron("over", null));
      assert.equal(await first.storage.crons.nextDueAt(), t0 - 1000);
      const claimed = await first.storage.crons.claimDue(t0, () => t0 + 60_000);
      assert.deepEqual(
        claimed.map((c) => c.cron_id),
        ["due"],
      );
      assert.deepEqual(await first.storage.crons.claimDue(t0, () => t0 + 60_000), []);
      await first.storage.close();

      const second = await target.open(key);
      after(() => second.storage.close());
      assert.deepEqual(await second.storage.crons.claimDue(t0 + 1, () => null), []);
      assert.equal((await second.storage.crons.get("due"))?.next_run_at, t0 + 60_000);
      const next = await second.storage.crons.claimDue(t0 + 60_000, () => null);
      assert.deepEqual(next.map((c) => c.cron_id).sort(), ["due", "later"]);
      assert.equal((await second.storage.crons.get("due"))?.next_run_at, null, "the schedule is over");
      assert.equal(
        await second.storage.crons.nextDueAt(),
        undefined,
        "only a disabled cron has an occurrence",
      );
    });

    it("a thread cron needs its thread and goes with it", async () => {
      const backend = await freshBackend(target, after);
      const onThread = { ...cron("c", Date.now()), thread_id: "t1" };
      await assert.rejects(backend.storage.crons.create(onThread), { status: 404 });
      const now = new Date().toISOString();
      await backend.storage.threads.create(newThread("t1", now), "raise");
      await backend.storage.crons.create(onThread);
      assert.equal(await backend.storage.crons.count({ thread_id: "t1" }), 1);
      await backend.storage.threads.delete("t1");
      assert.equal(await backend.storage.crons.get("c"), undefined);
    });
  });
}
