// A create built from rows read earlier (`CreateRunRequest.expected`), on a store that checks
// them (PostgreSQL): created when they hold, refused as stale with nothing written when the
// assistant or the thread's config changed. A store that does not check them refuses any.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { Assistant } from "@berth-platform/schemas";
import { decideMultitask } from "../src/queue/multitask.js";
import { StaleReadsError } from "../src/storage/stale-reads.js";
import type { CreateReads, Storage } from "../src/storage/types.js";
import { newRun } from "./storage-conformance-runs.js";
import { freshBackend, type StorageTarget } from "./storage-target.js";

const META = { graph_id: "agent", assistant_id: "a" };

/** The checked create's cases on `target`. */
export function createReadsCases(target: StorageTarget): void {
  describe(`checked create reads: ${target.name}`, () => {
    async function open(): Promise<{ storage: Storage; assistant: Assistant }> {
      const { storage } = await freshBackend(target, after);
      const now = new Date().toISOString();
      const assistant: Assistant = {
        assistant_id: "a",
        graph_id: "agent",
        config: {},
        context: {},
        metadata: {},
        name: "a",
        description: null,
        version: 1,
        created_at: now,
        updated_at: now,
      };
      await storage.assistants.create(assistant, "raise");
      return { storage, assistant };
    }
    const create = (storage: Storage, runId: string, expected?: CreateReads, config = "x") =>
      storage.runs.create({
        run: newRun(runId, "T"),
        createThreadIfMissing: true,
        threadMetadata: META,
        threadConfig: { configurable: { config } },
        decide: (active) => decideMultitask("enqueue", active),
        ...(expected ? { expected } : {}),
      });
    const finish = async (storage: Storage, runId: string) => {
      const claim = await storage.runs.claimNext("w", 60_000, Date.now());
      assert.equal(claim?.run.run_id, runId);
      await storage.runs.complete({
        runId,
        token: claim?.token ?? "",
        status: "success",
        error: null,
        thread: { values: {}, interrupts: {}, hasNext: false },
      });
    };

    it("what the create checked holds: created; changed since: stale, nothing written", async () => {
      const { storage, assistant } = await open();
      if (!storage.runs.checksCreateReads) {
        const expected = { assistant: { assistant_id: "a", version: 1, updated_at: assistant.updated_at } };
        await assert.rejects(
          create(storage, "r0", expected),
          StaleReadsError,
          "a store that cannot check refuses",
        );
        return;
      }
      await create(storage, "r1");
      await finish(storage, "r1");
      const configJson = await storage.threads.configJson("T");
      assert.ok(configJson);
      const held: CreateReads = {
        assistant: { assistant_id: "a", version: 1, updated_at: assistant.updated_at },
        threadConfigJson: configJson,
      };
      const created = await create(storage, "r2", held);
      assert.equal(created.run.run_id, "r2");
      assert.equal(created.threadConfigJson, JSON.stringify({ configurable: { config: "x" } }));
      await finish(storage, "r2");

      await storage.assistants.patch("a", { config: { configurable: { tag: "v2" } } });
      await assert.rejects(create(storage, "r3", held), StaleReadsError, "the assistant was patched");
      const patched = await storage.assistants.get("a");
      assert.ok(patched);
      const fresh: CreateReads = {
        assistant: { assistant_id: "a", version: patched.version, updated_at: patched.updated_at },
        threadConfigJson: '{"configurable":{"config":"other"}}',
      };
      await assert.rejects(create(storage, "r4", fresh), StaleReadsError, "the thread's config is not that");
      assert.equal(await storage.runs.get("T", "r3"), undefined, "nothing written");
      assert.equal(await storage.runs.get("T", "r4"), undefined, "nothing written");

      // Checked, but the thread is busy: the store's own transaction creates it (enqueued).
      await create(storage, "r5");
      const queued = await create(storage, "r6", { ...fresh, threadConfigJson: configJson });
      assert.equal(queued.run.status, "pending");
      assert.equal((await storage.runs.get("T", "r6"))?.status, "pending");

      await storage.threads.delete("T");
      await assert.rejects(
        create(storage, "r7", { ...fresh, threadConfigJson: configJson }),
        StaleReadsError,
        "the thread is gone",
      );
    });
  });
}
