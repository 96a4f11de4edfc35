// Claims made outside the queue's own claimNext, on every storage adapter: at a run's creation
// (the accepting process has a free slot) and as another run ends (the queue is full).
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { decideMultitask } from "../src/queue/multitask.js";
import type { Storage } from "../src/storage/types.js";
import { enqueue, newRun } from "./storage-conformance-runs.js";
import { freshBackend, type StorageTarget } from "./storage-target.js";

/** The run store's claim-elsewhere cases on `target`. */
export function claimCases(target: StorageTarget): void {
  describe(`run store claims: ${target.name}`, () => {
    async function open(): Promise<Storage> {
      return (await freshBackend(target, after)).storage;
    }

    it("claims a run at creation only when it could start at once", async () => {
      const storage = await open();
      const create = (runId: string, threadId: string, availableAt = 0) =>
        storage.runs.create({
          run: newRun(runId, threadId, availableAt),
          createThreadIfMissing: true,
          threadMetadata: {},
          decide: (active) => decideMultitask("enqueue", active),
          claimFor: { owner: "w", leaseMs: 10_000, nowMs: Date.now() },
        });
      const first = await create("a1", "A");
      assert.equal(first.run.status, "pending", "the API answers the run as created");
      assert.equal(first.claim?.run.status, "running");
      assert.equal(first.claim?.run.attempt, 1);
      assert.equal((await storage.runs.get("A", "a1"))?.status, "running");
      // Behind a running run on its thread, and a delayed run: both wait in the queue.
      const behind = await create("a2", "A");
      const delayed = await create("b1", "B", Date.now() + 60_000);
      assert.equal(behind.claim, undefined);
      assert.equal(delayed.claim, undefined);
      assert.equal((await storage.runs.get("A", "a2"))?.status, "pending");
      assert.equal(await storage.runs.claimNext("w", 10_000, Date.now()), undefined, "A is busy, B delayed");
      // The claim made at creation is fenced like any other: its token ends the run.
      const token = first.claim?.token ?? "";
      assert.equal(await storage.runs.renewLease("a1", token, 10_000, Date.now()), true);
      assert.equal(
        await storage.runs.complete({ runId: "a1", token, status: "success", error: null, thread: null }),
        true,
      );
      assert.equal((await storage.runs.claimNext("w", 10_000, Date.now()))?.run.run_id, "a2");
    });

    it("a run's end can claim the next waiting run in the same transaction (SQLite)", async () => {
      const storage = await open();
      for (const [run, thread] of [
        ["a1", "A"],
        ["a2", "A"],
        ["b1", "B"],
      ] as const) {
        await enqueue(storage, run, thread);
      }
      const first = await storage.runs.claimNext("w", 10_000, Date.now());
      const second = await storage.runs.claimNext("w", 10_000, Date.now());
      assert.deepEqual([first?.run.run_id, second?.run.run_id], ["a1", "b1"]);
      const claimFor = { owner: "w", leaseMs: 10_000, nowMs: Date.now() };
      const ended = {
        runId: "a1",
        token: first?.token ?? "",
        status: "success" as const,
        error: null,
        thread: null,
      };
      const stale = await storage.runs.completeAndClaim({ ...ended, token: "not-the-token" }, claimFor);
      assert.deepEqual(stale, { applied: false, next: undefined }, "a stale token claims nothing either");
      const result = await storage.runs.completeAndClaim(ended, claimFor);
      assert.equal(result.applied, true);
      assert.equal((await storage.runs.get("A", "a1"))?.status, "success");
      if (target.name === "sqlite") {
        // A's next run, in thread order, now that A's running run ended.
        assert.equal(result.next?.run.run_id, "a2");
        assert.equal(result.next?.run.attempt, 1);
        assert.equal((await storage.runs.get("A", "a2"))?.status, "running");
      } else {
        assert.equal(result.next, undefined, "with row locks the queue claims on its own");
        assert.equal((await storage.runs.claimNext("w", 10_000, Date.now()))?.run.run_id, "a2");
      }
      assert.equal(await storage.runs.claimNext("w", 10_000, Date.now()), undefined);
    });
  });
}
