// The scaled-out agent server when a connection to PostgreSQL drops between a commit and its
// acknowledgement: the statement took effect, but the process that sent it heard only an error.
// A worker's claim lost that way left the run `running` under the worker's own name, which its
// reaper skipped: nobody ever ran it. A run's finish lost that way left its end unsignalled.
// The proxy in front of PostgreSQL loses exactly one such answer. Needs DATABASE_URL and REDIS_URL.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { Client } from "@langchain/langgraph-sdk";
import { sleepy } from "./helpers.js";
import { PostgresProxy } from "./pg-proxy.js";
import { SCALED_SERVICES, skipWithoutServices, useScaledCluster } from "./scaled-helpers.js";

/** `promise`, or a failure naming `what` after `ms`: a hang here is the defect under test. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

if (!SCALED_SERVICES) {
  skipWithoutServices("the lost-answer tests are", "scaled-out agent server: answers lost after a commit");
} else {
  const services = SCALED_SERVICES;
  let proxy: PostgresProxy | undefined;
  after(() => proxy?.close());
  // Only the worker goes through the proxy: the answers lost are its own.
  const cluster = useScaledCluster({ apis: 1, workers: 0 }, services);
  let worker: Awaited<ReturnType<ReturnType<typeof cluster>["start"]>> | undefined;

  describe("agent server scaled out: a commit whose answer the connection lost", () => {
    const client = (): Client => cluster().clients[0] as Client;
    const startWorker = async () => {
      if (worker) return;
      const opened = await PostgresProxy.open(services.databaseUrl);
      proxy = opened.proxy;
      worker = await cluster().start("worker", { DATABASE_URI: opened.url });
    };

    it("a claim that took effect unheard is run anyway, once, when its lease expires", async () => {
      await startWorker();
      const thread = await client().threads.create();
      const lost = proxy?.loseAnswer("latest_checkpoint_run_id", "SELECT 1");
      const run = await client().runs.create(thread.thread_id, "slow", { input: sleepy(10, "claimed") });
      await within(30_000, "the claim's answer lost", lost ?? Promise.resolve());
      // The lease is 3 s and the reaper looks every 0.5 s.
      await within(30_000, "the run joined", client().runs.join(thread.thread_id, run.run_id));
      assert.equal((await client().runs.get(thread.thread_id, run.run_id)).status, "success");
      const state = await client().threads.getState<{ messages: Array<{ content: string }> }>(
        thread.thread_id,
      );
      assert.deepEqual(
        state.values.messages.map((m) => m.content),
        ["claimed sleep 10", "done: claimed sleep 10"],
        "the run's input and answer are in the thread once",
      );
    });

    it("a finish that took effect unheard still ends the run's stream and join", async () => {
      await startWorker();
      const thread = await client().threads.create();
      const lost = proxy?.loseAnswer("berth_finish_run", "SELECT 1");
      const started = Date.now();
      const events: string[] = [];
      const streamed = (async () => {
        for await (const chunk of client().runs.stream(thread.thread_id, "slow", {
          input: sleepy(10, "finished"),
          streamMode: ["values"],
        }))
          events.push(chunk.event);
      })();
      await within(30_000, "the finish's answer lost", lost ?? Promise.resolve());
      await within(30_000, "the stream's end", streamed);
      assert.ok(events.includes("values"), JSON.stringify(events));
      // The retried finish found the run ended as it said, and signalled it: no wait for a re-check.
      assert.ok(Date.now() - started < 4_000, `the stream ended after ${Date.now() - started} ms`);
      const runs = await client().runs.list(thread.thread_id);
      assert.deepEqual(
        runs.map((r) => r.status),
        ["success"],
      );
    });
  });
}
