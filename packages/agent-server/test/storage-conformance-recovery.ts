// Recovery of runs nobody is executing, on every storage adapter: a dead owner's runs re-queued
// (then failed once their attempts are spent), expired leases reaped, a stopping worker's runs
// handed back, and a cancel nobody lived to honour carried to the run's next claim.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { Storage } from "../src/storage/types.js";
import { enqueue } from "./storage-conformance-runs.js";
import { freshBackend, type StorageTarget } from "./storage-target.js";

export function recoveryCases(target: StorageTarget): void {
  describe(`run recovery: ${target.name}`, () => {
    async function open(): Promise<Storage> {
      return (await freshBackend(target, after)).storage;
    }

    it("recovers runs of a dead owner: re-queued, then failed after max attempts", async () => {
      const storage = await open();
      await enqueue(storage, "r", "T");
      for (let attempt = 1; attempt <= 3; attempt += 1) {
        const claim = await storage.runs.claimNext("dead", 10_000, Date.now());
        assert.equal(claim?.run.attempt, attempt);
        const report = await storage.runs.recover({
          liveOwner: "me",
          nowMs: Date.now(),
          maxAttempts: 3,
          allForeign: true,
        });
        if (attempt < 3) assert.deepEqual(report, { requeued: ["r"], failed: [] });
        else assert.deepEqual(report, { requeued: [], failed: ["r"] });
      }
      const run = await storage.runs.get("T", "r");
      assert.equal(run?.status, "error");
      assert.match(run?.error?.message ?? "", /after 3 attempts/);
      assert.equal((await storage.threads.get("T"))?.status, "error");
    });

    it("recovers only a dead owner's runs when named, whatever their lease (a cluster child that died)", async () => {
      const storage = await open();
      await enqueue(storage, "r1", "T1");
      await enqueue(storage, "r2", "T2");
      await storage.runs.claimNext("alive", 60_000, Date.now());
      await storage.runs.claimNext("dead", 60_000, Date.now());
      const report = await storage.runs.recover({
        liveOwner: "primary",
        nowMs: Date.now(),
        maxAttempts: 3,
        allForeign: true,
        deadOwner: "dead",
      });
      assert.deepEqual(report, { requeued: ["r2"], failed: [] });
      assert.equal((await storage.runs.get("T1", "r1"))?.status, "running");
      assert.equal((await storage.runs.get("T2", "r2"))?.status, "pending");
    });

    it("only reaps expired leases of other owners while running", async () => {
      const storage = await open();
      await enqueue(storage, "r", "T");
      const now = Date.now();
      await storage.runs.claimNext("other", 1_000, now);
      const early = await storage.runs.recover({
        liveOwner: "me",
        nowMs: now + 500,
        maxAttempts: 3,
        allForeign: false,
      });
      assert.deepEqual(early, { requeued: [], failed: [] });
      const late = await storage.runs.recover({
        liveOwner: "me",
        nowMs: now + 1_500,
        maxAttempts: 3,
        allForeign: false,
      });
      assert.deepEqual(late, { requeued: ["r"], failed: [] });
    });

    it("release hands a stopping worker's runs back without spending an attempt", async () => {
      const storage = await open();
      await enqueue(storage, "r", "T");
      await storage.runs.claimNext("w", 10_000, Date.now());
      assert.deepEqual(await storage.runs.release("w"), ["r"]);
      const run = await storage.runs.get("T", "r");
      assert.equal(run?.status, "pending");
      assert.equal(run?.attempt, 0);
    });

    it("a cancel ends a pending run now and asks a running one's worker to stop", async () => {
      const storage = await open();
      await enqueue(storage, "r1", "T");
      await enqueue(storage, "r2", "T");
      await storage.runs.claimNext("w", 10_000, Date.now());
      const results = await storage.runs.cancel("T", ["r1", "r2"], "interrupt");
      assert.deepEqual(results.map((r) => [r.run_id, r.outcome]).sort(), [
        ["r1", "signalled"],
        ["r2", "ended"],
      ]);
      assert.equal(await storage.runs.cancelAction("r1"), "interrupt");
      assert.equal((await storage.runs.get("T", "r2"))?.status, "interrupted");
      assert.equal(await storage.runs.delete("T", "r1"), "active");
      assert.equal(await storage.runs.delete("T", "r2"), "deleted");
      assert.equal(await storage.runs.delete("T", "r2"), "missing");
    });

    it("a cancel an attempt did not live to honour reaches the next claim of the run", async () => {
      const storage = await open();
      await enqueue(storage, "r1", "T1");
      await enqueue(storage, "r2", "T2");
      await storage.runs.claimNext("dead", 10_000, Date.now());
      await storage.runs.claimNext("stopping", 10_000, Date.now());
      assert.equal((await storage.runs.cancel("T1", ["r1"], "rollback"))[0]?.outcome, "signalled");
      assert.equal((await storage.runs.cancel("T2", ["r2"], "interrupt"))[0]?.outcome, "signalled");
      // One worker died before hearing it (recovered), the other handed its run back on shutdown.
      const report = await storage.runs.recover({
        liveOwner: "me",
        nowMs: Date.now(),
        maxAttempts: 3,
        allForeign: true,
        deadOwner: "dead",
      });
      assert.deepEqual(report, { requeued: ["r1"], failed: [] });
      assert.deepEqual(await storage.runs.release("stopping"), ["r2"]);
      const claims = [
        await storage.runs.claimNext("w", 10_000, Date.now()),
        await storage.runs.claimNext("w", 10_000, Date.now()),
      ];
      assert.deepEqual(claims.map((c) => [c?.run.run_id, c?.cancelAction]).sort(), [
        ["r1", "rollback"],
        ["r2", "interrupt"],
      ]);
      // A run never cancelled is claimed with no cancel.
      await enqueue(storage, "r3", "T3");
      const plain = await storage.runs.claimNext("w", 10_000, Date.now());
      assert.equal(plain?.run.run_id, "r3");
      assert.equal(plain?.cancelAction, undefined);
    });

    it("reaps the live owner's own expired runs it says it is not executing (a claim whose answer was lost)", async () => {
      const storage = await open();
      await enqueue(storage, "lost", "T1");
      await enqueue(storage, "held", "T2");
      const now = Date.now();
      await storage.runs.claimNext("me", 1_000, now);
      await storage.runs.claimNext("me", 1_000, now);
      const reap = (executing?: ReadonlySet<string>) =>
        storage.runs.recover({
          liveOwner: "me",
          nowMs: now + 2_000,
          maxAttempts: 3,
          allForeign: false,
          executing,
        });
      assert.deepEqual(await reap(), { requeued: [], failed: [] }, "without the list, its own runs are left");
      assert.deepEqual(await reap(new Set(["held"])), { requeued: ["lost"], failed: [] });
      assert.equal((await storage.runs.get("T1", "lost"))?.status, "pending");
      assert.equal(
        (await storage.runs.get("T2", "held"))?.status,
        "running",
        "a run it executes is left alone",
      );
      const early = await storage.runs.recover({
        liveOwner: "me",
        nowMs: now + 500,
        maxAttempts: 3,
        allForeign: false,
        executing: new Set(),
      });
      assert.deepEqual(early, { requeued: [], failed: [] }, "an unexpired lease is left alone");
      const again = await storage.runs.claimNext("me", 1_000, now + 2_000);
      assert.deepEqual([again?.run.run_id, again?.run.attempt], ["lost", 2]);
    });
  });
}
