// Run records, listing, join, interrupt/rollback strategies and failing runs, through the SDK.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { systemAssistantId } from "@berth-platform/agent-server";
import { Client } from "@langchain/langgraph-sdk";
import { messageTypes, sleepy, statusOf, useFixtureServer } from "./helpers.js";

const ctx = useFixtureServer();

describe("runs", () => {
  it("the run record has every field of the spec", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const input = { messages: [{ role: "user", content: "hi" }] };
    const run = await client.runs.create(thread.thread_id, "agent", { input, metadata: { origin: "test" } });
    assert.deepEqual(Object.keys(run).sort(), [
      "assistant_id",
      "created_at",
      "kwargs",
      "metadata",
      "multitask_strategy",
      "run_id",
      "status",
      "thread_id",
      "updated_at",
    ]);
    assert.equal(run.thread_id, thread.thread_id);
    assert.equal(run.assistant_id, systemAssistantId("agent"));
    assert.deepEqual(run.metadata, { origin: "test" });
    assert.ok(!Number.isNaN(Date.parse(run.created_at)));
    const kwargs = (run as unknown as { kwargs: Record<string, unknown> }).kwargs;
    assert.deepEqual(kwargs.input, input);
    const config = kwargs.config as {
      metadata: Record<string, unknown>;
      configurable: Record<string, unknown>;
    };
    assert.equal(typeof config.metadata.created_by, "string");
    const { "user-agent": userAgent, ...configurable } = config.configurable;
    assert.equal(typeof userAgent, "string", "user-agent is copied, as the official server does");
    assert.deepEqual(configurable, {
      // Without custom auth, as the official server records them.
      langgraph_auth_user: null,
      langgraph_auth_user_id: "",
      langgraph_auth_permissions: [],
      run_id: run.run_id,
      user_id: "",
      graph_id: "agent",
      thread_id: thread.thread_id,
      assistant_id: run.assistant_id,
      checkpoint_id: null,
    });
    assert.equal(kwargs.webhook, null);
    assert.equal(kwargs.temporary, false);
    assert.ok((kwargs.stream_mode as string[]).includes("values"));
    assert.equal(kwargs.feedback_keys, null);
    assert.equal(kwargs.interrupt_after, null);
    assert.equal(kwargs.interrupt_before, null);
    await client.runs.join(thread.thread_id, run.run_id);
  });

  it("copies x-* request headers (never credentials) into configurable", async () => {
    const client = new Client({
      apiUrl: ctx.server().url,
      defaultHeaders: { "x-request-source": "unit-test", "x-api-key": "must-not-leak", "x-tenant-id": "t" },
    });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "echo", { input: { messages: [] } });
    const configurable = (run as unknown as { kwargs: { config: { configurable: Record<string, unknown> } } })
      .kwargs.config.configurable;
    assert.equal(configurable["x-request-source"], "unit-test");
    assert.ok(!("x-api-key" in configurable) && !("x-tenant-id" in configurable));
    await client.runs.join(thread.thread_id, run.run_id);
  });

  it("interrupt_before stops before a node; command update and goto steer the next run", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, "agent", {
      input: { messages: [{ role: "user", content: "What is 2 + 2?" }] },
      interruptBefore: ["tools"],
    });
    await client.runs.join(thread.thread_id, first.run_id);
    const paused = await client.threads.getState(thread.thread_id);
    assert.deepEqual(paused.next, ["tools"]);
    assert.equal((await client.threads.get(thread.thread_id)).status, "interrupted");
    const resumed = (await client.runs.wait(thread.thread_id, "agent", { input: null })) as {
      messages: Array<{ type: string }>;
    };
    assert.deepEqual(
      resumed.messages.map((m) => m.type),
      ["human", "ai", "tool", "ai"],
    );
    const steered = (await client.runs.wait(thread.thread_id, "agent", {
      command: { update: { messages: [{ role: "user", content: "weather in Rome?" }] }, goto: "agent" },
    })) as { messages: Array<{ type: string; content: string }> };
    assert.equal(steered.messages[4]?.content, "weather in Rome?");
    assert.match(String(steered.messages.at(-1)?.content), /Rome/);
  });

  it("lists runs newest first, [] when none, with limit, offset and status", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    assert.deepEqual(await client.runs.list(thread.thread_id), []);
    const ids: string[] = [];
    for (const tag of ["a", "b", "c"]) {
      ids.push((await client.runs.create(thread.thread_id, "slow", { input: sleepy(0, tag) })).run_id);
    }
    await client.runs.join(thread.thread_id, ids[2] ?? "");
    const all = await client.runs.list(thread.thread_id);
    assert.deepEqual(
      all.map((r) => r.run_id),
      [...ids].reverse(),
    );
    const page = await client.runs.list(thread.thread_id, { limit: 1, offset: 1 });
    assert.deepEqual(
      page.map((r) => r.run_id),
      [ids[1]],
    );
    assert.equal((await client.runs.list(thread.thread_id, { status: "success" })).length, 3);
    assert.equal((await client.runs.list(thread.thread_id, { status: "error" })).length, 0);
  });

  it("join of a finished run returns the thread's values at once", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "echo", {
      input: { messages: [{ role: "user", content: "ping" }] },
    });
    await client.runs.join(thread.thread_id, run.run_id);
    const started = performance.now();
    const values = await client.runs.join(thread.thread_id, run.run_id);
    assert.ok(performance.now() - started < 1000);
    assert.deepEqual(messageTypes(values), ["human", "ai"]);
  });

  it("interrupt: the running run ends interrupted and the new one continues the thread", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, "slow", { input: sleepy(5000, "long") });
    await waitForStatus(client, thread.thread_id, first.run_id, "running");
    const second = await client.runs.create(thread.thread_id, "slow", {
      input: sleepy(0, "short"),
      multitaskStrategy: "interrupt",
    });
    await client.runs.join(thread.thread_id, second.run_id);
    assert.equal((await client.runs.get(thread.thread_id, first.run_id)).status, "interrupted");
    assert.equal((await client.runs.get(thread.thread_id, second.run_id)).status, "success");
    const contents = (await client.threads.getState(thread.thread_id)).values as {
      messages: Array<{ content: string }>;
    };
    // The interrupted run's input checkpoint is kept; its node never finished.
    assert.deepEqual(
      contents.messages.map((m) => m.content),
      ["long sleep 5000", "short sleep 0", "done: short sleep 0"],
    );
  });

  it("rollback: the running run and its checkpoints are deleted", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, "slow", { input: sleepy(5000, "doomed") });
    await waitForStatus(client, thread.thread_id, first.run_id, "running");
    const second = await client.runs.create(thread.thread_id, "slow", {
      input: sleepy(0, "kept"),
      multitaskStrategy: "rollback",
    });
    await client.runs.join(thread.thread_id, second.run_id);
    assert.equal(await statusOf(client.runs.get(thread.thread_id, first.run_id)), 404);
    const state = await client.threads.getState(thread.thread_id);
    const contents = (state.values as { messages: Array<{ content: string }> }).messages.map(
      (m) => m.content,
    );
    assert.deepEqual(contents, ["kept sleep 0", "done: kept sleep 0"]);
  });

  it("a graph that throws ends its run in error and the thread in error", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "failing", { input: { messages: [] } });
    await client.runs.join(thread.thread_id, run.run_id);
    assert.equal((await client.runs.get(thread.thread_id, run.run_id)).status, "error");
    assert.equal((await client.threads.get(thread.thread_id)).status, "error");
  });

  it("an uncompiled StateGraph export is compiled by the server and sees graph.json env", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "builder", { input: { messages: [] } });
    const values = (await client.runs.join(thread.thread_id, run.run_id)) as {
      messages: Array<{ content: string }>;
    };
    assert.equal(values.messages.at(-1)?.content, "hello from graph.json");
  });

  it("a factory export is called with the run's config", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "factory", { input: { messages: [] } });
    const values = (await client.runs.join(thread.thread_id, run.run_id)) as {
      messages: Array<{ content: string }>;
    };
    assert.equal(values.messages.at(-1)?.content, `made for run ${run.run_id}`);
  });

  it("thread status: busy while a run is active, idle after", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    assert.equal(thread.status, "idle");
    const run = await client.runs.create(thread.thread_id, "slow", { input: sleepy(300, "s") });
    assert.equal((await client.threads.get(thread.thread_id)).status, "busy");
    await client.runs.join(thread.thread_id, run.run_id);
    const after = await client.threads.get(thread.thread_id);
    assert.equal(after.status, "idle");
    assert.deepEqual(messageTypes(after.values), ["human", "ai"]);
  });
});

async function waitForStatus(
  client: ReturnType<typeof ctx.client>,
  threadId: string,
  runId: string,
  status: string,
): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    if ((await client.runs.get(threadId, runId)).status === status) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`run ${runId} never reached ${status}`);
}
