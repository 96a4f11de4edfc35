// The run queue's guarantees on a real SQLite file: per-thread FIFO, one running run per thread,
// fenced completion, recovery of runs a dead process left running. Written against the storage
// port so a PostgreSQL adapter runs the same cases.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { makeTempDir } from "@berth-platform/testkit";
import { decideMultitask } from "../src/queue/multitask.js";
import { openSqliteBackend } from "../src/storage/sqlite/index.js";
import type { NewRun, Storage } from "../src/storage/types.js";

function newRun(runId: string, threadId: string, availableAt = 0): NewRun {
  return {
    run_id: runId,
    thread_id: threadId,
    assistant_id: "a",
    created_at: new Date().toISOString(),
    metadata: {},
    kwargs: {
      input: null,
      command: null,
      config: {},
      context: null,
      webhook: null,
      temporary: false,
      stream_mode: ["values"],
      subgraphs: false,
      resumable: false,
      feedback_keys: null,
      interrupt_before: null,
      interrupt_after: null,
    },
    multitask_strategy: "enqueue",
    available_at: availableAt,
  };
}

async function enqueue(storage: Storage, runId: string, threadId: string, availableAt = 0) {
  return storage.runs.create({
    run: newRun(runId, threadId, availableAt),
    createThreadIfMissing: true,
    threadMetadata: {},
    decide: (active) => decideMultitask("enqueue", active),
  });
}

describe("SQLite run store", () => {
  const temp = makeTempDir();
  after(() => temp.cleanup());
  let n = 0;
  async function open(): Promise<Storage> {
    n += 1;
    const backend = await openSqliteBackend(`${temp.dir}/db-${n}`);
    after(() => backend.storage.close());
    return backend.storage;
  }

  it("claims runs per thread in FIFO order, one running run per thread", async () => {
    const storage = await open();
    for (const [run, thread] of [
      ["a1", "A"],
      ["b1", "B"],
      ["a2", "A"],
      ["b2", "B"],
    ] as const) {
      await enqueue(storage, run, thread);
    }
    const first = await storage.runs.claimNext("w", 10_000, Date.now());
    const second = await storage.runs.claimNext("w", 10_000, Date.now());
    assert.deepEqual([first?.run.run_id, second?.run.run_id], ["a1", "b1"]);
    assert.equal(await storage.runs.claimNext("w", 10_000, Date.now()), undefined, "both threads are busy");
    assert.ok(
      first &&
        (await storage.runs.complete({
          runId: "a1",
          token: first.token,
          status: "success",
          error: null,
          thread: null,
        })),
    );
    assert.equal((await storage.runs.claimNext("w", 10_000, Date.now()))?.run.run_id, "a2");
  });

  it("does not start a delayed run early", async () => {
    const storage = await open();
    await enqueue(storage, "later", "T", Date.now() + 60_000);
    assert.equal(await storage.runs.claimNext("w", 10_000, Date.now()), undefined);
    assert.ok((await storage.runs.nextAvailableAt()) ?? 0 > Date.now());
    assert.equal((await storage.runs.claimNext("w", 10_000, Date.now() + 61_000))?.run.run_id, "later");
  });

  it("ignores a completion or renewal with a stale token", async () => {
    const storage = await open();
    await enqueue(storage, "r", "T");
    const claim = await storage.runs.claimNext("w", 10_000, Date.now());
    assert.ok(claim);
    assert.equal(await storage.runs.renewLease("r", "not-the-token", 10_000, Date.now()), false);
    assert.equal(
      await storage.runs.complete({
        runId: "r",
        token: "not-the-token",
        status: "success",
        error: null,
        thread: null,
      }),
      false,
    );
    assert.equal((await storage.runs.get("T", "r"))?.status, "running");
    assert.equal(await storage.runs.renewLease("r", claim.token, 10_000, Date.now()), true);
  });

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

  it("refuses a second process on the same data directory", async () => {
    const dir = `${temp.dir}/locked`;
    const backend = await openSqliteBackend(dir);
    after(() => backend.storage.close());
    // The lock holds this process's pid, which is alive: a second open must refuse.
    const fs = await import("node:fs");
    fs.writeFileSync(`${dir}/server.lock`, String(process.ppid));
    await assert.rejects(openSqliteBackend(dir), /in use by process/);
  });
});
