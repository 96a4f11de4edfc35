// The scaled-out agent server when its parts fail (issue 14): 2 API + 2 worker processes of the
// built CLI on one PostgreSQL and one Redis; workers killed with SIGKILL, Redis stopped under load.
// Needs DATABASE_URL and REDIS_URL (CI exports both); skips with a notice without them. Where
// redis-server is installed the suite runs its own Redis (the outage test stops it), so other
// files' streams on the shared one are safe.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Client } from "@langchain/langgraph-sdk";
import { sleepy, statusOf } from "./helpers.js";
import { mapLimit, readStream } from "./load-helpers.js";
import { CAN_RUN_PRIVATE_REDIS, type PrivateRedis, REDIS_SERVER } from "./private-redis.js";
import { SCALED_SERVICES, skipWithoutServices, useScaledCluster } from "./scaled-helpers.js";

if (!SCALED_SERVICES) {
  skipWithoutServices("the scaled-out agent server failure tests are", "scaled-out agent server failures");
} else {
  // The outage test stops and restarts Redis: the suite runs a Redis of its own for that, since
  // other test files use the shared one at the same time.
  const cluster = useScaledCluster({ apis: 2, workers: 2, ownRedis: CAN_RUN_PRIVATE_REDIS }, SCALED_SERVICES);

  describe("agent server scaled out, its parts failing: 2 API + 2 worker processes on PostgreSQL + Redis", () => {
    it("kill -9 of a worker mid-run, 3 times under load: every run ends through another worker, from its checkpoint", async () => {
      const c = cluster();
      const [api1, api2] = c.clients as [Client, Client];
      const threads = await Promise.all(Array.from({ length: 12 }, () => api1.threads.create()));
      const runs: Array<{ thread: string; run: string; tag: string }> = [];
      for (let round = 0; round < 3; round++) {
        for (const [t, thread] of threads.entries()) {
          const tag = `k${round}-${t}`;
          const run = await (t % 2 ? api1 : api2).runs.create(thread.thread_id, "slow", {
            input: sleepy(1_500, tag),
          });
          runs.push({ thread: thread.thread_id, run: run.run_id, tag });
        }
        await new Promise((resolve) => setTimeout(resolve, 700));
        const victim = c.workers.shift();
        assert.ok(victim);
        await victim.stop("SIGKILL");
        c.workers.push(await c.start("worker"));
      }
      await mapLimit(runs, 12, ({ thread, run }) => api2.runs.join(thread, run));
      for (const { thread, run } of runs)
        assert.equal((await api1.runs.get(thread, run)).status, "success", `run ${run}`);
      const retried = await c.query<{ n: number }>("select count(*)::int as n from runs where attempt > 1");
      assert.ok((retried[0]?.n ?? 0) > 0, "some runs were taken over from a killed worker");
      for (const thread of threads) {
        const state = await api1.threads.getState<{ messages: Array<{ type: string; content: string }> }>(
          thread.thread_id,
        );
        const human = state.values.messages.filter((m) => m.type === "human").map((m) => m.content);
        assert.equal(new Set(human).size, human.length, "a resumed run did not apply its input twice");
        assert.equal(human.length, 3);
      }
    });

    it("a cancel recorded while the run's worker was dead (kill -9): the run is not run again", async () => {
      const c = cluster();
      const [api1, api2] = c.clients as [Client, Client];
      const threads = [await api1.threads.create(), await api1.threads.create()];
      const runs = await Promise.all(
        threads.map((t, i) =>
          api1.runs.create(t.thread_id, "slow", { input: sleepy(20_000, `cancelled while dead ${i}`) }),
        ),
      );
      const until = async (what: string, check: () => Promise<boolean>) => {
        const end = Date.now() + 60_000;
        while (!(await check())) {
          if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };
      await until("both runs running", async () =>
        (await Promise.all(runs.map((r, i) => api1.runs.get(threads[i]?.thread_id ?? "", r.run_id)))).every(
          (r) => r.status === "running",
        ),
      );
      // Every worker dies: the cancels are recorded on the rows with nobody to hear them.
      await Promise.all(c.workers.splice(0).map((w) => w.stop("SIGKILL")));
      const [t0, t1] = threads.map((t) => t.thread_id) as [string, string];
      const [r0, r1] = runs.map((r) => r.run_id) as [string, string];
      await api2.runs.cancel(t0, r0, false, "interrupt");
      await api2.runs.cancel(t1, r1, false, "rollback");
      c.workers.push(await c.start("worker"), await c.start("worker"));
      // Taken over after the lease (3 s) and stopped at once. Run again, the first would end in
      // success 20 s later and the second would never be deleted. The reaper hands the run back
      // to the queue first, so it passes through `pending` and `running` again on its way.
      await until(
        "the interrupted run to end",
        async () => !["pending", "running"].includes((await api1.runs.get(t0, r0)).status),
      );
      assert.equal((await api1.runs.get(t0, r0)).status, "interrupted");
      await until(
        "the rolled-back run to be deleted",
        async () => (await statusOf(api1.runs.get(t1, r1))) === 404,
      );
      const human = (
        await api1.threads.getState<{ messages: Array<{ type: string }> }>(t0)
      ).values?.messages?.filter((m) => m.type === "human");
      // Killed before its first step, the run left no state at all.
      assert.ok((human ?? []).length <= 1, "the interrupted run's input was not applied twice");
    });

    it("Redis stopped for 15 s under load: every accepted run ends, a stream open meanwhile ends with no gap or duplicate", {
      skip: CAN_RUN_PRIVATE_REDIS ? false : `needs ${REDIS_SERVER} to run a Redis of its own`,
    }, async () => {
      const [api1, api2] = cluster().clients as [Client, Client];
      const threads = await Promise.all(Array.from({ length: 10 }, () => api1.threads.create()));
      const runs: Array<{ thread: string; run: string }> = [];
      const enqueue = async (round: number) => {
        for (const [t, thread] of threads.entries()) {
          const created = await (t % 2 ? api1 : api2).runs.create(thread.thread_id, "slow", {
            input: sleepy(300, `o${round}-${t}`),
          });
          runs.push({ thread: thread.thread_id, run: created.run_id });
        }
      };
      await enqueue(0);
      const streamThread = await api1.threads.create();
      const streamed = await api1.runs.create(streamThread.thread_id, "steps", {
        input: {},
        streamMode: ["values"],
        streamResumable: true,
      });
      const frames = readStream(api2, streamThread.thread_id, streamed.run_id, { lastEventId: "-1" });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const redis = cluster().redis as PrivateRedis;
      await redis.stop();
      try {
        assert.equal(await redis.answers(), false, "Redis is down");
        // Accepted meanwhile: PostgreSQL is the source of truth.
        await enqueue(1);
        await enqueue(2);
        await new Promise((resolve) => setTimeout(resolve, 15_000));
      } finally {
        await redis.start();
      }
      await mapLimit(runs, 10, ({ thread, run: runId }, i) => (i % 2 ? api1 : api2).runs.join(thread, runId));
      for (const { thread, run: runId } of runs)
        assert.equal((await api2.runs.get(thread, runId)).status, "success", `run ${runId}`);
      const got = await frames;
      const ids = got.map((f) => f.id);
      assert.equal(new Set(ids).size, ids.length, "no duplicate");
      const counts = got.filter((f) => f.event === "values").map((f) => (f.data as { count: number }).count);
      // Consecutive counts up to 8 (whether the initial state's count 0 is sent is LangGraph's call).
      assert.deepEqual(counts, [0, 1, 2, 3, 4, 5, 6, 7, 8].slice(9 - counts.length), "no gap");
      assert.ok(counts.length >= 8, `every step's values arrived (${counts.join(",")})`);
      assert.equal(counts.at(-1), 8, "the stream reached the run's end");
    });
  });
}
