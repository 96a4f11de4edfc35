// The run queue's guarantees, on every storage adapter: per-thread FIFO, one running run per
// thread, fenced completion, cancels (recovery is in storage-conformance-recovery.ts); on a shared
// adapter (PostgreSQL) also across concurrent "processes" (backends open on one database).
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { ConflictError } from "../src/errors.js";
import { decideMultitask } from "../src/queue/multitask.js";
import type { NewRun, RunCompletion, Storage } from "../src/storage/types.js";
import { freshBackend, type StorageTarget, twoProcesses } from "./storage-target.js";

export function newRun(runId: string, threadId: string, availableAt = 0): NewRun {
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

export async function enqueue(
  storage: Storage,
  runId: string,
  threadId: string,
  availableAt = 0,
  strategy: "enqueue" | "reject" = "enqueue",
) {
  return storage.runs.create({
    run: { ...newRun(runId, threadId, availableAt), multitask_strategy: strategy },
    createThreadIfMissing: true,
    threadMetadata: {},
    decide: (active) => decideMultitask(strategy, active),
  });
}

/** The run store's cases on `target`. */
export function runStoreCases(target: StorageTarget): void {
  describe(`run store: ${target.name}`, () => {
    async function open(): Promise<Storage> {
      return (await freshBackend(target, after)).storage;
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

    it("a run whose thread was deleted while it ran ends without effect", async () => {
      const storage = await open();
      await enqueue(storage, "r", "T");
      const claim = await storage.runs.claimNext("w", 10_000, Date.now());
      assert.ok(claim);
      assert.equal(await storage.threads.delete("T"), true);
      const ended = {
        runId: "r",
        token: claim.token,
        status: "success" as const,
        error: null,
        thread: { values: { x: 1 }, interrupts: {}, hasNext: false },
      };
      assert.equal(await storage.runs.complete(ended), false);
      const claimFor = { owner: "w", leaseMs: 10_000, nowMs: Date.now() };
      assert.deepEqual(await storage.runs.completeAndClaim(ended, claimFor), {
        applied: false,
        next: undefined,
      });
      assert.equal(await storage.threads.get("T"), undefined, "the thread is not brought back");
      assert.equal(await storage.runs.get("T", "r"), undefined);
    });

    it("a completed run sets the thread's values and status; with runs left it stays busy", async () => {
      const storage = await open();
      await enqueue(storage, "r1", "T");
      await enqueue(storage, "r2", "T");
      const claim = await storage.runs.claimNext("w", 10_000, Date.now());
      assert.ok(claim);
      await storage.runs.complete({
        runId: "r1",
        token: claim.token,
        status: "success",
        error: null,
        thread: { values: { n: 1 }, interrupts: {}, hasNext: false },
      });
      const thread = await storage.threads.get("T");
      assert.deepEqual(thread?.values, { n: 1 });
      assert.equal(thread?.status, "busy");
      assert.deepEqual(await storage.threads.activeRunIds("T"), ["r2"]);
      assert.equal(await storage.runs.countPending(), 1);
    });

    it("a join reads the run's status, and the thread's values with it once the run has ended", async () => {
      const storage = await open();
      await enqueue(storage, "r1", "T");
      assert.deepEqual(await storage.runs.joinState("T", "r1"), { status: "pending" });
      const claim = await storage.runs.claimNext("w", 10_000, Date.now());
      assert.ok(claim);
      assert.deepEqual(await storage.runs.joinState("T", "r1"), { status: "running" });
      await storage.runs.complete({
        runId: "r1",
        token: claim.token,
        status: "interrupted",
        error: null,
        thread: { values: { n: 1 }, interrupts: {}, hasNext: false },
      });
      const ended = await storage.runs.joinState("T", "r1");
      assert.equal(ended?.status, "interrupted");
      assert.deepEqual(JSON.parse(ended?.resultJson ?? ""), { n: 1 });
      assert.equal((await storage.threads.get("T"))?.status, "idle");
      assert.equal(await storage.runs.joinState("T", "missing"), undefined);
      assert.equal(await storage.runs.joinState("other thread", "r1"), undefined, "another thread's run");
      await enqueue(storage, "r2", "U");
      const second = await storage.runs.claimNext("w", 10_000, Date.now());
      assert.ok(second);
      await storage.runs.complete({
        runId: "r2",
        token: second.token,
        status: "success",
        error: null,
        thread: null,
      });
      assert.deepEqual(await storage.runs.joinState("U", "r2"), { status: "success", resultJson: "null" });
    });

    it("a join of an ended run answers its error, or its thread's interrupts while the thread is interrupted", async () => {
      const storage = await open();
      const finish = async (runId: string, threadId: string, end: Partial<RunCompletion>) => {
        await enqueue(storage, runId, threadId);
        const claim = await storage.runs.claimNext("w", 10_000, Date.now());
        assert.ok(claim);
        await storage.runs.complete({
          runId,
          token: claim.token,
          status: "success",
          error: null,
          thread: null,
          ...end,
        });
      };
      const failure = { error: "ValueError", message: "no" };
      await finish("r1", "T", { status: "error", error: failure });
      assert.deepEqual(JSON.parse((await storage.runs.joinState("T", "r1"))?.resultJson ?? ""), {
        __error__: failure,
      });
      const interrupt = { value: "approve?", id: "i1" };
      await finish("r2", "U", {
        thread: {
          values: { n: 2 },
          interrupts: { task1: [interrupt], task2: [{ value: 2, id: "i2" }] },
          hasNext: true,
        },
      });
      assert.equal((await storage.threads.get("U"))?.status, "interrupted");
      assert.deepEqual(JSON.parse((await storage.runs.joinState("U", "r2"))?.resultJson ?? ""), {
        __interrupt__: [interrupt, { value: 2, id: "i2" }],
      });
      // A static breakpoint: interrupted with nothing to show, the thread's values.
      await finish("r3", "V", { thread: { values: { n: 3 }, interrupts: {}, hasNext: true } });
      assert.deepEqual(JSON.parse((await storage.runs.joinState("V", "r3"))?.resultJson ?? ""), { n: 3 });
    });

    it("a new run merges its graph and assistant into the thread's metadata, keeping the other keys", async () => {
      const storage = await open();
      const create = (runId: string, graph: string) =>
        storage.runs.create({
          run: newRun(runId, "T"),
          createThreadIfMissing: true,
          threadMetadata: { graph_id: graph, assistant_id: "a" },
          decide: (active) => decideMultitask("enqueue", active),
        });
      const finish = async () => {
        const claim = await storage.runs.claimNext("w", 10_000, Date.now());
        assert.ok(claim);
        await storage.runs.complete({
          runId: claim.run.run_id,
          token: claim.token,
          status: "success",
          error: null,
          thread: { values: {}, interrupts: {}, hasNext: false },
        });
      };
      await create("r1", "g1");
      await finish();
      await storage.threads.patch("T", { owner: "me" });
      await create("r2", "g1");
      await finish();
      assert.deepEqual((await storage.threads.get("T"))?.metadata, {
        graph_id: "g1",
        assistant_id: "a",
        owner: "me",
      });
      await create("r3", "g2");
      const thread = await storage.threads.get("T");
      assert.deepEqual(thread?.metadata, { graph_id: "g2", assistant_id: "a", owner: "me" });
      assert.equal(thread?.status, "busy");
    });

    it("a run's config becomes its thread's config unless a run is active (official servers)", async () => {
      const storage = await open();
      const create = (runId: string, model: string) =>
        storage.runs.create({
          run: newRun(runId, "T"),
          createThreadIfMissing: true,
          threadMetadata: {},
          threadConfig: { configurable: { model } },
          decide: (active) => decideMultitask("enqueue", active),
        });
      await create("r1", "first");
      assert.deepEqual((await storage.threads.get("T"))?.config, { configurable: { model: "first" } });
      await create("r2", "second");
      assert.deepEqual(
        (await storage.threads.get("T"))?.config,
        { configurable: { model: "first" } },
        "an enqueued run leaves the config of the active one",
      );
    });

    it("concurrent reject creates on one thread: exactly one is accepted", async () => {
      const storage = await open();
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => enqueue(storage, `r${i}`, "T", 0, "reject")),
      );
      assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
      for (const r of results)
        if (r.status === "rejected") assert.ok(r.reason instanceof ConflictError, String(r.reason));
    });
  });
}

/**
 * Cases for adapters shared by several processes: two backends open on one database claim,
 * complete and reap at once, as two workers would.
 */
export function sharedRunStoreCases(target: StorageTarget): void {
  describe(`run store shared by two processes: ${target.name}`, () => {
    it("concurrent claimers: each run once, per-thread order, never two running on a thread", async () => {
      const { a, b } = await twoProcesses(target, after);
      const threads = 20;
      const perThread = 5;
      for (let i = 0; i < perThread; i++)
        for (let t = 0; t < threads; t++) await enqueue(a.storage, `r-${t}-${i}`, `T${t}`);
      const started: string[] = [];
      const running = new Set<string>();
      let overlap = false;
      const worker = async (storage: Storage, owner: string) => {
        for (;;) {
          const claim = await storage.runs.claimNext(owner, 10_000, Date.now());
          if (!claim) {
            if ((await storage.runs.countPending()) === 0) return;
            await new Promise((resolve) => setTimeout(resolve, 5));
            continue;
          }
          const thread = claim.run.thread_id;
          if (running.has(thread)) overlap = true;
          running.add(thread);
          started.push(claim.run.run_id);
          await new Promise((resolve) => setTimeout(resolve, 1));
          running.delete(thread);
          const done = await storage.runs.complete({
            runId: claim.run.run_id,
            token: claim.token,
            status: "success",
            error: null,
            thread: null,
          });
          assert.ok(done);
        }
      };
      await Promise.all([
        worker(a.storage, "wa1"),
        worker(a.storage, "wa2"),
        worker(b.storage, "wb1"),
        worker(b.storage, "wb2"),
      ]);
      assert.equal(overlap, false, "two runs of one thread ran at once");
      assert.equal(started.length, threads * perThread);
      assert.equal(new Set(started).size, started.length, "a run was claimed twice");
      for (let t = 0; t < threads; t++) {
        const order = started.filter((id) => id.startsWith(`r-${t}-`));
        assert.deepEqual(
          order,
          Array.from({ length: perThread }, (_, i) => `r-${t}-${i}`),
        );
        assert.equal((await b.storage.threads.get(`T${t}`))?.status, "idle");
      }
    });

    it("reject creates from two processes on one new thread: exactly one is accepted", async () => {
      const { a, b } = await twoProcesses(target, after);
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          enqueue(i % 2 ? a.storage : b.storage, `r${i}`, "T", 0, "reject"),
        ),
      );
      assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
    });

    it("two reapers: an expired lease is requeued once; a live worker's lease is left alone", async () => {
      const { a, b } = await twoProcesses(target, after);
      await enqueue(a.storage, "dead", "T1");
      await enqueue(a.storage, "alive", "T2");
      const now = Date.now();
      await a.storage.runs.claimNext("crashed", 1_000, now);
      const alive = await a.storage.runs.claimNext("live", 60_000, now);
      assert.ok(alive);
      const reap = (storage: Storage, owner: string) =>
        storage.runs.recover({ liveOwner: owner, nowMs: now + 2_000, maxAttempts: 3, allForeign: false });
      const [r1, r2] = await Promise.all([reap(a.storage, "x"), reap(b.storage, "y")]);
      assert.deepEqual([...r1.requeued, ...r2.requeued], ["dead"]);
      assert.equal((await b.storage.runs.get("T2", "alive"))?.status, "running");
    });
  });
}
