// The agent server scaled out (issue 14): 2 API + 2 worker processes of the built CLI on one
// PostgreSQL and one Redis, driven through the official SDK. Needs DATABASE_URL and REDIS_URL (CI
// exports both); skips with a notice without them. Processes killed and Redis stopped:
// agent-server-scaled-failures.test.ts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Client } from "@langchain/langgraph-sdk";
import { Redis } from "ioredis";
import { sleepy, statusOf, untilRunning } from "./helpers.js";
import {
  assertRunsInOrder,
  createThreads,
  enqueueRoundRobin,
  joinAll,
  OVERLAPPING_THREADS_SQL,
  readStream,
  sampleOverlaps,
} from "./load-helpers.js";
import { SCALED_SERVICES, skipWithoutServices, useScaledCluster } from "./scaled-helpers.js";

const THREADS = 200;
const RUNS_PER_THREAD = 5;

if (!SCALED_SERVICES) {
  skipWithoutServices("the scaled-out agent server tests are", "scaled-out agent server");
} else {
  const cluster = useScaledCluster({ apis: 2, workers: 2 }, SCALED_SERVICES);

  describe("agent server scaled out: 2 API + 2 worker processes on PostgreSQL + Redis", () => {
    it("1,000 runs over 200 threads created round-robin on both APIs: each once, in order, one at a time per thread", async () => {
      const { clients, query } = cluster();
      // Never two running runs on one thread, sampled from the database while the load runs.
      const sampler = sampleOverlaps(
        async () => Number((await query<{ n: number | string }>(OVERLAPPING_THREADS_SQL))[0]?.n ?? 0),
        50,
      );
      const threadIds = await createThreads(clients, THREADS, 16);
      const runs = await enqueueRoundRobin(clients, threadIds, RUNS_PER_THREAD, 32);
      // Joined from the other API each time.
      await joinAll(clients, threadIds, runs, 32);
      assert.equal(await sampler.stop(), 0, "two runs of one thread were running at once");
      const statuses = await query<{ status: string; n: number; attempts: number }>(
        "select status, count(*)::int as n, max(attempt)::int as attempts from runs group by status",
      );
      assert.deepEqual(statuses, [{ status: "success", n: THREADS * RUNS_PER_THREAD, attempts: 1 }]);
      await assertRunsInOrder(clients, threadIds, RUNS_PER_THREAD, 16);
    });

    it("a run started on API 1 streams on API 2; dropped and rejoined on API 1 with Last-Event-ID: no gap, no duplicate", async () => {
      const [api1, api2] = cluster().clients as [Client, Client];
      const thread = await api1.threads.create();
      const run = await api1.runs.create(thread.thread_id, "steps", {
        input: {},
        streamMode: ["values", "updates"],
        streamResumable: true,
      });
      const before = await readStream(api2, thread.thread_id, run.run_id, {
        lastEventId: "-1",
        stopAfter: 5,
      });
      assert.equal(before.length, 5);
      assert.equal(before[0]?.event, "metadata", "the first event is the run's metadata");
      const rest = await readStream(api1, thread.thread_id, run.run_id, { lastEventId: before.at(-1)?.id });
      const whole = await readStream(api2, thread.thread_id, run.run_id, { lastEventId: "-1" });
      const ids = [...before, ...rest].map((f) => f.id);
      assert.deepEqual(
        ids,
        whole.map((f) => f.id),
        "the dropped and rejoined streams together are the whole stream",
      );
      assert.equal(new Set(ids).size, ids.length, "no duplicate");
      const counts = whole
        .filter((f) => f.event === "values")
        .map((f) => (f.data as { count: number }).count);
      assert.equal(counts.at(-1), 8, "the stream reached the run's end");
    });

    it("a run forked from an earlier checkpoint, and a double-text that rolls a run back: the thread holds its own branch", async () => {
      // LangGraph numbers a channel's versions from its parent checkpoint, and the checkpoint
      // tables keep one blob per (thread, channel, version), first write wins: with the official
      // saver's integer versions a branch that reaches a version its sibling wrote reads the
      // sibling's messages back (langgraphjs#1812).
      const [api1, api2] = cluster().clients as [Client, Client];
      const texts = (values: unknown) =>
        (values as { messages: Array<{ content: string }> }).messages.map((m) => m.content);
      const thread = await api1.threads.create();
      await api1.runs.wait(thread.thread_id, "echo", {
        input: { messages: [{ role: "user", content: "one" }] },
      });
      const afterOne = (await api1.threads.getState(thread.thread_id)).checkpoint.checkpoint_id ?? undefined;
      await api1.runs.wait(thread.thread_id, "echo", {
        input: { messages: [{ role: "user", content: "two" }] },
      });
      const forked = await api2.runs.wait(thread.thread_id, "echo", {
        input: { messages: [{ role: "user", content: "three" }] },
        checkpointId: afterOne,
      });
      assert.deepEqual(texts(forked), ["one", "one", "three", "three"]);
      assert.deepEqual(texts((await api2.threads.getState(thread.thread_id)).values), [
        "one",
        "one",
        "three",
        "three",
      ]);
      const next = await api1.runs.wait(thread.thread_id, "echo", {
        input: { messages: [{ role: "user", content: "four" }] },
      });
      assert.deepEqual(texts(next), ["one", "one", "three", "three", "four", "four"]);

      // Rollback: the slow run's checkpoints are deleted, the next run starts from the same parent.
      const rolled = await api1.threads.create();
      await api1.runs.wait(rolled.thread_id, "echo", {
        input: { messages: [{ role: "user", content: "a" }] },
      });
      const slow = await api1.runs.create(rolled.thread_id, "slow", { input: sleepy(20_000, "rolled back") });
      await untilRunning(api1, rolled.thread_id, slow.run_id);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const after = await api2.runs.wait(rolled.thread_id, "echo", {
        input: { messages: [{ role: "user", content: "b" }] },
        multitaskStrategy: "rollback",
      });
      assert.deepEqual(texts(after), ["a", "a", "b", "b"]);
      // The step before the echo (newest first: the end, then that step) is the new run's too.
      const history = await api1.threads.getHistory(rolled.thread_id, { limit: 2 });
      assert.deepEqual(
        history.map((state) => texts(state.values)),
        [
          ["a", "a", "b", "b"],
          ["a", "a", "b"],
        ],
      );
    });

    it("join, wait and cancel work from either API process", async () => {
      const [api1, api2] = cluster().clients as [Client, Client];
      const thread = await api1.threads.create();
      const run = await api1.runs.create(thread.thread_id, "slow", { input: sleepy(500, "joined") });
      const joined = (await api2.runs.join(thread.thread_id, run.run_id)) as {
        messages: Array<{ content: string }>;
      };
      assert.equal(joined.messages.at(-1)?.content, "done: joined sleep 500");

      const waited = (await api2.runs.wait(thread.thread_id, "slow", { input: sleepy(200, "waited") })) as {
        messages: Array<{ content: string }>;
      };
      assert.equal(waited.messages.at(-1)?.content, "done: waited sleep 200");
      // A stateless run's thread is gone once it ends: its values come with the worker's signal.
      const stateless = (await api2.runs.wait(null, "slow", { input: sleepy(100, "stateless") })) as {
        messages: Array<{ content: string }>;
      };
      assert.equal(stateless.messages.at(-1)?.content, "done: stateless sleep 100");

      const long = await api1.runs.create(thread.thread_id, "slow", { input: sleepy(20_000, "cancelled") });
      // Running on a worker before the cancel arrives.
      await untilRunning(api1, thread.thread_id, long.run_id);
      const started = Date.now();
      await api2.runs.cancel(thread.thread_id, long.run_id, true);
      await api1.runs.join(thread.thread_id, long.run_id);
      assert.ok(Date.now() - started < 5_000, "the worker stopped the run at once");
      assert.equal((await api1.runs.get(thread.thread_id, long.run_id)).status, "interrupted");
    });

    it("an assistant or a thread's config changed through the other API: API 1's next run is built from the new rows", async () => {
      // API processes keep a run's assistant and thread config between creates; the create's own
      // statement checks them, so a change made through another process is never missed.
      const [api1, api2] = cluster().clients as [Client, Client];
      const assistant = await api1.assistants.create({
        graphId: "slow",
        config: { configurable: { tag: "v1" } },
      });
      const configurableOf = async (
        api: Client,
        threadId: string,
        config?: { configurable: Record<string, unknown> },
      ) => {
        const run = await api.runs.create(threadId, assistant.assistant_id, {
          input: sleepy(1, "config"),
          ...(config ? { config } : {}),
        });
        await api.runs.join(threadId, run.run_id);
        // The SDK's Run type leaves `kwargs` out; the server sends it.
        return (run as unknown as { kwargs: { config: { configurable: Record<string, unknown> } } }).kwargs
          .config.configurable;
      };
      const thread = await api1.threads.create();
      assert.equal((await configurableOf(api1, thread.thread_id)).tag, "v1");
      assert.equal(
        (await configurableOf(api1, thread.thread_id)).tag,
        "v1",
        "a second run from the kept rows",
      );
      await api2.assistants.update(assistant.assistant_id, { config: { configurable: { tag: "v2" } } });
      // A thread's config holds what its first run's assistant said (it outranks the assistant's):
      // a new thread shows the assistant as it is now.
      const other = await api1.threads.create();
      assert.equal(
        (await configurableOf(api1, other.thread_id)).tag,
        "v2",
        "the assistant patched through API 2",
      );
      // A run through API 2 with a config of its own changes the thread's config.
      const viaApi2 = await configurableOf(api2, thread.thread_id, { configurable: { note: "from api 2" } });
      assert.equal(viaApi2.note, "from api 2");
      assert.equal(
        (await configurableOf(api1, thread.thread_id)).note,
        "from api 2",
        "the thread's config written through API 2",
      );
      await api2.assistants.delete(assistant.assistant_id);
      assert.equal(
        await statusOf(
          api1.runs.create(thread.thread_id, assistant.assistant_id, { input: sleepy(1, "gone") }),
        ),
        404,
        "the assistant deleted through API 2",
      );
      await api2.threads.delete(thread.thread_id);
      assert.equal(
        await statusOf(api1.runs.create(thread.thread_id, "slow", { input: sleepy(1, "gone") })),
        404,
        "the thread deleted through API 2",
      );
    });

    it("a run that is not resumable reaches Redis (beyond its acceptance) only once someone listens; its listeners miss nothing", async () => {
      const { clients, prefix, redisUrl } = cluster();
      const [api1, api2] = clients as [Client, Client];
      const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      try {
        // Streamed as it is created (a worker process executes it): every event, in order.
        const thread = await api2.threads.create();
        const frames: Array<{ event: string; data: unknown }> = [];
        for await (const frame of api2.runs.stream(thread.thread_id, "steps", {
          input: {},
          streamMode: ["values"],
        })) {
          // Heartbeat comments come as nameless events (not in the SDK's type).
          if ((frame.event as string) !== "") frames.push({ event: frame.event, data: frame.data });
        }
        assert.equal(frames[0]?.event, "metadata");
        const counts = frames
          .filter((f) => f.event === "values")
          .map((f) => (f.data as { count: number }).count);
        assert.deepEqual(
          counts,
          [...counts].sort((a, b) => a - b),
          "in order",
        );
        assert.equal(counts.at(-1), 8, "to the run's end");

        // Joined, never streamed: of its stream only the acceptance's `metadata` was written to
        // Redis (a listener joining later from any process reads it first).
        const joined = await api1.runs.create(thread.thread_id, "steps", { input: {} });
        await api1.runs.join(thread.thread_id, joined.run_id);
        const logged = await redis.xrange(`${prefix}stream:${joined.run_id}`, "-", "+");
        assert.equal(logged.length, 1, "only the acceptance was logged for a run nobody streamed");
        assert.match(JSON.stringify(logged[0]), /metadata/);

        // Streamed from the other API while it runs: what it says from then on, and its end.
        const other = await api1.threads.create();
        const slow = await api1.runs.create(other.thread_id, "slow", { input: sleepy(1_500, "live") });
        await untilRunning(api1, other.thread_id, slow.run_id);
        let timer: NodeJS.Timeout | undefined;
        const live = await Promise.race([
          readStream(api2, other.thread_id, slow.run_id, {}),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error("the live stream did not end")), 30_000);
          }),
        ]).finally(() => clearTimeout(timer));
        const last = live.filter((f) => f.event === "values").at(-1)?.data as {
          messages: Array<{ content: string }>;
        };
        assert.equal(last?.messages.at(-1)?.content, "done: live sleep 1500", "the run's last values");
      } finally {
        redis.disconnect();
      }
    });

    it("an interrupting double-text or a cancel from the other API right after create: the run stops, the next runs", async () => {
      const [api1, api2] = cluster().clients as [Client, Client];
      for (let i = 0; i < 4; i++) {
        const thread = await api1.threads.create();
        const first = await api1.runs.create(thread.thread_id, "slow", {
          input: sleepy(20_000, `first ${i}`),
        });
        const started = Date.now();
        const second = await api2.runs.create(thread.thread_id, "slow", {
          input: sleepy(100, `second ${i}`),
          multitaskStrategy: "interrupt",
        });
        const joined = (await api1.runs.join(thread.thread_id, second.run_id)) as {
          messages: Array<{ content: string }>;
        };
        assert.equal(joined.messages.at(-1)?.content, `done: second ${i} sleep 100`);
        assert.ok(Date.now() - started < 10_000, "the displaced run stopped at once");
        assert.equal((await api2.runs.get(thread.thread_id, first.run_id)).status, "interrupted");
        const third = await api2.runs.create(thread.thread_id, "slow", {
          input: sleepy(20_000, `third ${i}`),
        });
        await api1.runs.cancel(thread.thread_id, third.run_id, true);
        assert.equal((await api2.runs.get(thread.thread_id, third.run_id)).status, "interrupted");
        assert.ok(Date.now() - started < 15_000, "the cancelled run stopped at once");
      }
    });

    it("reject races across the two API processes: exactly one run accepted, the rest 409", async () => {
      const [api1, api2] = cluster().clients as [Client, Client];
      const thread = await api1.threads.create();
      const statuses = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          statusOf(
            (i % 2 ? api1 : api2).runs.create(thread.thread_id, "slow", {
              input: sleepy(300, `race ${i}`),
              multitaskStrategy: "reject",
            }),
          ),
        ),
      );
      assert.deepEqual(statuses.sort(), [200, ...Array(9).fill(409)], `statuses: ${statuses.join(",")}`);
    });
  });
}
