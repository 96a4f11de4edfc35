// Threads, assistants (with versions) and the checkpointer's housekeeping, on every storage adapter.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { Assistant } from "@berth-platform/schemas";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { Annotation, StateGraph } from "@langchain/langgraph";
import { newThread } from "../src/domain/thread-record.js";
import { ConflictError } from "../src/errors.js";
import { freshBackend, type StorageTarget } from "./storage-target.js";

function assistant(id: string, name: string, metadata: Record<string, unknown> = {}): Assistant {
  const now = new Date().toISOString();
  return {
    assistant_id: id,
    graph_id: "agent",
    config: {},
    context: {},
    metadata,
    name,
    description: null,
    version: 1,
    created_at: now,
    updated_at: now,
  };
}

/** A graph that appends its input to a list, checkpointed by `saver`. */
function counter(saver: unknown) {
  const State = Annotation.Root({
    items: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  });
  return new StateGraph(State)
    .addNode("add", () => ({}))
    .addEdge("__start__", "add")
    .compile({ checkpointer: saver as BaseCheckpointSaver });
}

/** Thread, assistant and checkpoint cases on `target`. */
export function threadAndAssistantCases(target: StorageTarget): void {
  describe(`thread store: ${target.name}`, () => {
    it("creates once (409 or the existing one), patches metadata, searches by containment", async () => {
      const { storage } = await freshBackend(target, after);
      const now = new Date().toISOString();
      await storage.threads.create(newThread("t1", now, { user: "a", tags: ["x", "y"] }), "raise");
      await storage.threads.create(newThread("t2", now, { user: "b" }), "raise");
      await assert.rejects(storage.threads.create(newThread("t1", now), "raise"), ConflictError);
      assert.equal((await storage.threads.create(newThread("t1", now), "do_nothing")).metadata.user, "a");
      const patched = await storage.threads.patch("t2", { extra: 1 });
      assert.deepEqual(patched?.metadata, { user: "b", extra: 1 });
      assert.equal(await storage.threads.patch("missing", {}), undefined);
      const found = await storage.threads.search({
        metadata: { tags: ["y"] },
        limit: 10,
        offset: 0,
        sortBy: "created_at",
        sortOrder: "desc",
      });
      assert.deepEqual(
        found.map((t) => t.thread_id),
        ["t1"],
      );
      assert.equal(await storage.threads.count({ status: "idle" }), 2);
      await storage.threads.setState("t1", { values: { a: 1 }, interrupts: {}, hasNext: true });
      const t1 = await storage.threads.get("t1");
      assert.equal(t1?.status, "interrupted");
      assert.deepEqual(t1?.values, { a: 1 });
      assert.deepEqual(JSON.parse(await storage.threads.valuesJson("t1")), { a: 1 });
      assert.equal(await storage.threads.valuesJson("t2"), "null", "a thread without values");
      assert.equal(await storage.threads.valuesJson("missing"), "null");
      assert.equal(await storage.threads.delete("t1"), true);
      assert.equal(await storage.threads.delete("t1"), false);
    });

    it("concurrent creates of one id: one wins, the others are ConflictErrors", async () => {
      const { storage } = await freshBackend(target, after);
      const now = new Date().toISOString();
      const results = await Promise.allSettled(
        Array.from({ length: 6 }, () => storage.threads.create(newThread("same", now), "raise")),
      );
      assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
    });
  });

  describe(`assistant store: ${target.name}`, () => {
    it("versions every patch, searches by name (literally) and metadata, sets the latest", async () => {
      const { storage } = await freshBackend(target, after);
      await storage.assistants.upsertSystem([assistant("sys", "agent")]);
      await storage.assistants.upsertSystem([assistant("sys", "changed")]);
      assert.equal((await storage.assistants.get("sys"))?.name, "agent", "upsert keeps an existing one");
      await storage.assistants.create(assistant("a1", "My 100%_Bot", { team: "x" }), "raise");
      await assert.rejects(storage.assistants.create(assistant("a1", "again"), "raise"), ConflictError);
      const v2 = await storage.assistants.patch("a1", { metadata: { extra: true } });
      assert.equal(v2?.version, 2);
      assert.deepEqual(v2?.metadata, { team: "x", extra: true });
      const byName = await storage.assistants.search({ name: "100%_b", limit: 10, offset: 0 });
      assert.deepEqual(
        byName.map((a) => a.assistant_id),
        ["a1"],
      );
      assert.deepEqual(await storage.assistants.search({ name: "0_%", limit: 10, offset: 0 }), []);
      assert.equal(await storage.assistants.count({ metadata: { team: "x" } }), 1);
      const versions = await storage.assistants.versions("a1", { limit: 10, offset: 0 });
      assert.deepEqual(
        versions.map((v) => v.version),
        [2, 1],
      );
      assert.equal((await storage.assistants.setLatest("a1", 1))?.version, 1);
      assert.equal(await storage.assistants.setLatest("a1", 9), undefined);
      assert.equal(await storage.assistants.delete("a1"), true);
      assert.deepEqual(await storage.assistants.versions("a1", { limit: 10, offset: 0 }), []);
    });

    it("concurrent patches each get their own version", async () => {
      const { storage } = await freshBackend(target, after);
      await storage.assistants.create(assistant("a", "a"), "raise");
      await Promise.all(
        Array.from({ length: 5 }, (_, i) => storage.assistants.patch("a", { metadata: { [`k${i}`]: i } })),
      );
      const versions = await storage.assistants.versions("a", { limit: 10, offset: 0 });
      assert.deepEqual(
        versions.map((v) => v.version),
        [6, 5, 4, 3, 2, 1],
      );
      assert.equal(Object.keys((await storage.assistants.get("a"))?.metadata ?? {}).length, 5);
    });
  });

  describe(`checkpoints: ${target.name}`, () => {
    it("the official saver keeps run metadata; copy and per-run delete work on its tables", async () => {
      const backend = await freshBackend(target, after);
      const graph = counter(backend.checkpointer);
      await graph.invoke(
        { items: ["one"] },
        { configurable: { thread_id: "t", run_id: "run-1" }, metadata: { run_id: "run-1" } },
      );
      await graph.invoke(
        { items: ["two"] },
        { configurable: { thread_id: "t", run_id: "run-2" }, metadata: { run_id: "run-2" } },
      );
      const state = await graph.getState({ configurable: { thread_id: "t" } });
      assert.deepEqual(state.values.items, ["one", "two"]);
      assert.equal(state.metadata?.["run_id" as never], "run-2");

      await backend.checkpoints.copyThread("t", "copy");
      const copied = await graph.getState({ configurable: { thread_id: "copy" } });
      assert.deepEqual(copied.values.items, ["one", "two"]);
      assert.equal(copied.metadata?.["thread_id" as never], "copy");

      await backend.checkpoints.deleteRunCheckpoints("t", "run-2");
      const rolledBack = await graph.getState({ configurable: { thread_id: "t" } });
      assert.deepEqual(rolledBack.values.items, ["one"]);

      await backend.checkpoints.deleteThread("t");
      assert.deepEqual((await graph.getState({ configurable: { thread_id: "t" } })).values, {});
      assert.deepEqual((await graph.getState({ configurable: { thread_id: "copy" } })).values.items, [
        "one",
        "two",
      ]);
    });
  });
}
