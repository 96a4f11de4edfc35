// Run options through the SDK: timeout, after_seconds, forking from a checkpoint, context and config.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sleepy, useFixtureServer } from "./helpers.js";

const ctx = useFixtureServer({ BG_JOB_TIMEOUT_SECS: "1" });
const ask = (content: string) => ({ messages: [{ role: "user", content }] });

describe("run options", () => {
  it("a run past BG_JOB_TIMEOUT_SECS ends in timeout and frees its thread", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const slow = await client.runs.create(thread.thread_id, "slow", { input: sleepy(5000, "too long") });
    const next = await client.runs.create(thread.thread_id, "echo", { input: ask("after") });
    const started = performance.now();
    await client.runs.join(thread.thread_id, slow.run_id);
    assert.ok(performance.now() - started < 4000, "stopped near the limit, not after the node");
    assert.equal((await client.runs.get(thread.thread_id, slow.run_id)).status, "timeout");
    await client.runs.join(thread.thread_id, next.run_id);
    assert.equal(
      (await client.runs.get(thread.thread_id, next.run_id)).status,
      "success",
      "the queued run went on",
    );
  });

  it("after_seconds delays the start", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const started = Date.now();
    const run = await client.runs.create(thread.thread_id, "echo", { input: ask("later"), afterSeconds: 1 });
    assert.equal(run.status, "pending");
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(
      (await client.runs.get(thread.thread_id, run.run_id)).status,
      "pending",
      "not started early",
    );
    await client.runs.join(thread.thread_id, run.run_id);
    assert.ok(Date.now() - started >= 1000);
    assert.equal((await client.runs.get(thread.thread_id, run.run_id)).status, "success");
  });

  it("a run from an older checkpoint forks the thread's history", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "echo", { input: ask("one") });
    const afterFirst = await client.threads.getState(thread.thread_id);
    await client.runs.wait(thread.thread_id, "echo", { input: ask("two") });
    const forked = (await client.runs.wait(thread.thread_id, "echo", {
      input: ask("three"),
      checkpointId: afterFirst.checkpoint.checkpoint_id ?? undefined,
    })) as { messages: Array<{ content: string }> };
    assert.deepEqual(
      forked.messages.map((m) => m.content),
      ["one", "one", "three", "three"],
      "the fork continues from after the first run, without the second",
    );
  });

  it("context and configurable reach the nodes", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const values = (await client.runs.wait(thread.thread_id, "context", {
      input: ask("x"),
      context: { user: "ann" },
      config: { configurable: { tone: "dry" } },
    })) as { messages: Array<{ content: string }> };
    assert.equal(values.messages.at(-1)?.content, 'context={"user":"ann"} tone=dry');
  });

  it("context alone or configurable alone: the other gets a copy, as the official server keeps them in step", async () => {
    const client = ctx.client();
    const reply = async (options: {
      context?: Record<string, unknown>;
      config?: Record<string, unknown>;
    }) => {
      const thread = await client.threads.create();
      const values = (await client.runs.wait(thread.thread_id, "context", {
        input: ask("x"),
        ...options,
      })) as {
        messages: Array<{ content: string }>;
      };
      return values.messages.at(-1)?.content;
    };
    // A newer client's context reaches a graph that reads configurable, and the other way round.
    assert.equal(await reply({ context: { tone: "dry" } }), 'context={"tone":"dry"} tone=dry');
    assert.equal(
      await reply({ config: { configurable: { tone: "dry" } } }),
      'context={"tone":"dry"} tone=dry',
    );

    const fromContext = await client.assistants.create({ graphId: "context", context: { tone: "warm" } });
    assert.deepEqual(fromContext.config.configurable, { tone: "warm" });
    const fromConfigurable = await client.assistants.create({
      graphId: "context",
      config: { configurable: { tone: "cold" } },
    });
    assert.deepEqual(fromConfigurable.context, { tone: "cold" });
    const patched = await client.assistants.update(fromConfigurable.assistant_id, {
      context: { tone: "mild" },
    });
    assert.deepEqual(patched.config.configurable, { tone: "mild" });
    assert.deepEqual(patched.context, { tone: "mild" });
  });
});
