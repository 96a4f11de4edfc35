// Double-texting under concurrency: the multitask decision is atomic with the insert.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Client } from "@langchain/langgraph-sdk";
import { sleepy, statusOf, useFixtureServer } from "./helpers.js";

const ctx = useFixtureServer();

describe("concurrent run creation", () => {
  it("10 simultaneous reject creates on an idle thread: exactly one is accepted, the rest 409", async () => {
    for (let trial = 0; trial < 5; trial += 1) {
      const thread = await ctx.client().threads.create();
      // Separate clients, as separate users would be (the SDK caps one client's concurrency).
      const statuses = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          statusOf(
            new Client({ apiUrl: ctx.server().url }).runs.create(thread.thread_id, "slow", {
              input: sleepy(300, `c${i}`),
              multitaskStrategy: "reject",
            }),
          ),
        ),
      );
      assert.equal(statuses.filter((s) => s === 200).length, 1, `trial ${trial}: ${statuses.join(",")}`);
      assert.equal(statuses.filter((s) => s === 409).length, 9);
      const runs = await ctx.client().runs.list(thread.thread_id);
      assert.equal(runs.length, 1);
      await ctx.client().runs.join(thread.thread_id, runs[0]?.run_id ?? "");
    }
  });

  it("20 simultaneous enqueue creates run one at a time, in the order they were accepted", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        new Client({ apiUrl: ctx.server().url }).runs.create(thread.thread_id, "slow", {
          input: sleepy(20, `e${i}`),
        }),
      ),
    );
    let maxRunning = 0;
    const last = created.at(-1);
    for (let i = 0; i < 400; i += 1) {
      const runs = await client.runs.list(thread.thread_id, { limit: 100 });
      maxRunning = Math.max(maxRunning, runs.filter((r) => r.status === "running").length);
      if (runs.every((r) => r.status === "success")) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(maxRunning, 1, "never two running runs on one thread");
    await client.runs.join(thread.thread_id, last?.run_id ?? "");
    const state = await client.threads.getState(thread.thread_id);
    const humans = (state.values as { messages: Array<{ type: string; content: string }> }).messages
      .filter((m) => m.type === "human")
      .map((m) => m.content);
    // The order received is the run list's (newest first, by insertion); execution must follow it.
    const listed = await client.runs.list(thread.thread_id, { limit: 100 });
    const accepted = listed
      .reverse()
      .map(
        (r) =>
          (r as unknown as { kwargs: { input: { messages: Array<{ content: string }> } } }).kwargs.input
            .messages[0]?.content,
      );
    assert.equal(accepted.length, 20);
    assert.deepEqual(humans, accepted);
  });
});
