// Claims made outside the queue's own claimNext, on every storage adapter: at a run's creation
// (the accepting process has a free slot) and as another run ends (the queue is full).
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import pg from "pg";
import { decideMultitask } from "../src/queue/multitask.js";
import type { ClaimedRun, Storage } from "../src/storage/types.js";
import { enqueue, newRun } from "./storage-conformance-runs.js";
import { freshBackend, type StorageTarget, twoProcesses } from "./storage-target.js";

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

    it("a run's end without thread values claims in its transaction only on SQLite", async () => {
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
        // PostgreSQL claims at a run's end only in the common end's one statement (cases below).
        assert.equal(result.next, undefined, "with row locks the queue claims on its own");
        assert.equal((await storage.runs.claimNext("w", 10_000, Date.now()))?.run.run_id, "a2");
      }
      assert.equal(await storage.runs.claimNext("w", 10_000, Date.now()), undefined);
    });

    it("a run's common end claims the next runnable run: thread order, one running per thread", async () => {
      const storage = await open();
      await enqueue(storage, "c1", "C", Date.now() + 60_000);
      for (const [run, thread] of [
        ["b1", "B"],
        ["b2", "B"],
        ["a1", "A"],
        ["a2", "A"],
      ] as const) {
        await enqueue(storage, run, thread);
      }
      const b1 = await storage.runs.claimNext("w", 10_000, Date.now());
      const a1 = await storage.runs.claimNext("w", 10_000, Date.now());
      assert.deepEqual([b1?.run.run_id, a1?.run.run_id], ["b1", "a1"]);
      const claimFor = () => ({ owner: "w", leaseMs: 10_000, nowMs: Date.now() });
      const ended = (runId: string, token: string, n: number) => ({
        runId,
        token,
        status: "success" as const,
        error: null,
        thread: { values: { n }, interrupts: {}, hasNext: false },
      });
      // b2 waits longest, but B's b1 runs; c1 is delayed: A's own next run is the one.
      const result = await storage.runs.completeAndClaim(ended("a1", a1?.token ?? "", 1), claimFor());
      assert.equal(result.applied, true);
      assert.equal((await storage.runs.get("A", "a1"))?.status, "success");
      const next = result.next;
      assert.equal(next?.run.run_id, "a2");
      assert.equal(next?.run.status, "running");
      assert.equal(next?.run.attempt, 1);
      assert.equal(next?.fresh, undefined, "a queued run is not known to be new");
      assert.equal(next?.cancelAction, undefined);
      if (target.name === "postgres") assert.equal(next?.latestCheckpointRunId, null, "read by the claim");
      assert.equal((await storage.runs.get("A", "a2"))?.status, "running");
      assert.equal(await storage.runs.renewLease("a2", next?.token ?? "", 10_000, Date.now()), true);
      const thread = await storage.threads.get("A");
      assert.deepEqual(thread?.values, { n: 1 }, "the end's values are stored");
      assert.equal(thread?.status, "busy", "a2 runs");
      assert.equal((await storage.runs.get("B", "b2"))?.status, "pending");
      assert.equal(await storage.runs.claimNext("w", 10_000, Date.now()), undefined, "A, B busy; C delayed");
      // B's end hands over to b2; A's last end finds nothing runnable and leaves A idle.
      const b = await storage.runs.completeAndClaim(ended("b1", b1?.token ?? "", 2), claimFor());
      assert.equal(b.next?.run.run_id, "b2");
      const last = await storage.runs.completeAndClaim(ended("a2", next?.token ?? "", 3), claimFor());
      assert.deepEqual(last, { applied: true, next: undefined });
      assert.equal((await storage.threads.get("A"))?.status, "idle");
      assert.equal((await storage.runs.get("C", "c1"))?.status, "pending");
    });

    it("a stale token's common end neither ends the run nor claims", async () => {
      const storage = await open();
      await enqueue(storage, "a1", "A");
      await enqueue(storage, "b1", "B");
      const a1 = await storage.runs.claimNext("w", 10_000, Date.now());
      assert.equal(a1?.run.run_id, "a1");
      const stale = await storage.runs.completeAndClaim(
        {
          runId: "a1",
          token: "not-the-token",
          status: "success",
          error: null,
          thread: { values: { n: 1 }, interrupts: {}, hasNext: false },
        },
        { owner: "w", leaseMs: 10_000, nowMs: Date.now() },
      );
      assert.deepEqual(stale, { applied: false, next: undefined });
      assert.equal((await storage.runs.get("A", "a1"))?.status, "running");
      assert.equal((await storage.runs.get("B", "b1"))?.status, "pending", "nothing claimed");
      assert.equal((await storage.threads.get("A"))?.values, null, "the thread is left as it was");
    });

    it("the run a run's end claims carries a cancel its earlier attempt did not honour", async () => {
      const storage = await open();
      await enqueue(storage, "x1", "X");
      await enqueue(storage, "d1", "D");
      const x1 = await storage.runs.claimNext("w", 10_000, Date.now());
      assert.equal((await storage.runs.claimNext("gone", 10_000, Date.now()))?.run.run_id, "d1");
      assert.equal((await storage.runs.cancel("D", ["d1"], "interrupt"))[0]?.outcome, "signalled");
      assert.deepEqual(await storage.runs.release("gone"), ["d1"]);
      const result = await storage.runs.completeAndClaim(
        {
          runId: "x1",
          token: x1?.token ?? "",
          status: "success",
          error: null,
          thread: { values: {}, interrupts: {}, hasNext: false },
        },
        { owner: "w", leaseMs: 10_000, nowMs: Date.now() },
      );
      assert.equal(result.next?.run.run_id, "d1");
      assert.equal(result.next?.run.attempt, 1, "a handed-back attempt is not counted");
      assert.equal(result.next?.cancelAction, "interrupt");
    });
  });
}

/** Claims at a run's end racing the queue's claims of another process on the same database. */
export function sharedClaimCases(target: StorageTarget): void {
  describe(`claims at a run's end, two processes: ${target.name}`, () => {
    it("one process ends runs claiming the next, the other claims: each run once, in order, every end kept", async () => {
      const { a, b } = await twoProcesses(target, after);
      const threads = 12;
      const perThread = 5;
      for (let i = 0; i < perThread; i++)
        for (let t = 0; t < threads; t++) await enqueue(a.storage, `r-${t}-${i}`, `T${t}`);
      const started: string[] = [];
      const running = new Set<string>();
      let overlap = false;
      let handedOver = 0;
      const execute = async (claim: ClaimedRun) => {
        const thread = claim.run.thread_id;
        if (running.has(thread)) overlap = true;
        running.add(thread);
        started.push(claim.run.run_id);
        await new Promise((resolve) => setTimeout(resolve, 1));
        running.delete(thread);
        return {
          runId: claim.run.run_id,
          token: claim.token,
          status: "success" as const,
          error: null,
          thread: { values: { last: claim.run.run_id }, interrupts: {}, hasNext: false },
        };
      };
      const idle = async (storage: Storage) => {
        if ((await storage.runs.countPending()) === 0) return true;
        await new Promise((resolve) => setTimeout(resolve, 2));
        return false;
      };
      // Process a: the queue's own claim, then the plain end.
      const claimer = async (owner: string) => {
        for (;;) {
          const claim = await a.storage.runs.claimNext(owner, 10_000, Date.now());
          if (!claim) {
            if (await idle(a.storage)) return;
            continue;
          }
          assert.ok(await a.storage.runs.complete(await execute(claim)), "an end was lost");
        }
      };
      // Process b: every end claims the next run in the same statement.
      const handOver = async (owner: string) => {
        let claim = await b.storage.runs.claimNext(owner, 10_000, Date.now());
        for (;;) {
          if (!claim) {
            if (await idle(b.storage)) return;
            claim = await b.storage.runs.claimNext(owner, 10_000, Date.now());
            continue;
          }
          const ended = await execute(claim);
          const result = await b.storage.runs.completeAndClaim(ended, {
            owner,
            leaseMs: 10_000,
            nowMs: Date.now(),
          });
          assert.ok(result.applied, "an end was lost");
          if (result.next) handedOver += 1;
          claim = result.next;
        }
      };
      await Promise.all([claimer("wa1"), claimer("wa2"), handOver("wb1"), handOver("wb2")]);
      assert.equal(overlap, false, "two runs of one thread ran at once");
      assert.equal(started.length, threads * perThread);
      assert.equal(new Set(started).size, started.length, "a run was claimed twice");
      assert.ok(handedOver > 0, "no run's end claimed the next");
      for (let t = 0; t < threads; t++) {
        const order = started.filter((id) => id.startsWith(`r-${t}-`));
        assert.deepEqual(
          order,
          Array.from({ length: perThread }, (_, i) => `r-${t}-${i}`),
        );
        const thread = await b.storage.threads.get(`T${t}`);
        assert.equal(thread?.status, "idle");
        assert.deepEqual(thread?.values, { last: `r-${t}-${perThread - 1}` }, "the last end's values");
      }
    });
  });
}

/**
 * PostgreSQL: the claim at a run's end loses to another process's claim on the same thread that
 * commits while the claim waits on the one-running-run-per-thread index. The other process is a
 * raw transaction here, held open so the loss happens every time (a race only sometimes shows it).
 */
export function claimConflictCases(target: StorageTarget, url: string): void {
  describe(`a claim at a run's end refused by the one-running-run index: ${target.name}`, () => {
    it("the end stands and nothing is claimed", async () => {
      const key = await target.fresh();
      const backend = await target.open(key);
      const other = new pg.Client({ connectionString: url });
      await other.connect();
      after(async () => {
        await other.end();
        await backend.storage.close();
      });
      const { storage } = backend;
      await enqueue(storage, "a1", "A");
      await enqueue(storage, "b1", "B");
      const a1 = await storage.runs.claimNext("w", 10_000, Date.now());
      assert.equal(a1?.run.run_id, "a1");
      await other.query(`set search_path to "${key}"`);
      await other.query("begin");
      const now = new Date().toISOString();
      await other.query(
        `insert into runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs,
           multitask_strategy, attempt, available_at, lease_owner, lease_token, lease_expires_at)
         values ('b0', 'B', 'a', $1, $1, 'running', '{}', '{}', 'enqueue', 1, 0, 'other', 'other-token', $2)`,
        [now, Date.now() + 10_000],
      );
      const ending = storage.runs.completeAndClaim(
        {
          runId: "a1",
          token: a1?.token ?? "",
          status: "success",
          error: null,
          thread: { values: { n: 1 }, interrupts: {}, hasNext: false },
        },
        { owner: "w", leaseMs: 10_000, nowMs: Date.now() },
      );
      // The end's claim chose b1 and now waits for the other transaction's entry in the index.
      const deadline = Date.now() + 30_000;
      for (;;) {
        // Inside a transaction PostgreSQL keeps its first view of pg_stat_activity: cleared so
        // each poll sees the other backend now (without it the wait was missed under load).
        await other.query("select pg_stat_clear_snapshot()");
        const waiting = await other.query(
          `select 1 from pg_stat_activity
           where pid <> pg_backend_pid() and wait_event_type = 'Lock'
             and query like '%berth_finish_run_and_claim%'`,
        );
        if (waiting.rowCount) break;
        assert.ok(Date.now() < deadline, "the end's claim never waited on the other claim");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await other.query("commit");
      assert.deepEqual(await ending, { applied: true, next: undefined });
      assert.equal((await storage.runs.get("A", "a1"))?.status, "success");
      assert.deepEqual((await storage.threads.get("A"))?.values, { n: 1 });
      assert.equal((await storage.threads.get("A"))?.status, "idle");
      assert.equal((await storage.runs.get("B", "b1"))?.status, "pending");
      assert.equal((await storage.runs.get("B", "b0"))?.status, "running");
    });
  });
}
