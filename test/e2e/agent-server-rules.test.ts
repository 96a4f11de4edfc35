// The six rules of the agent server spec, through the official SDK against a spawned `berth dev`.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { messageTypes, sleepy, statusOf, useFixtureServer } from "./helpers.js";

const ctx = useFixtureServer();

describe("agent server rules (spec)", () => {
  it("rule 5: a run is pending right after creation and success once joined", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", { input: sleepy(200, "r5") });
    assert.equal(run.status, "pending");
    await client.runs.join(thread.thread_id, run.run_id);
    const fetched = await client.runs.get(thread.thread_id, run.run_id);
    assert.equal(fetched.status, "success");
  });

  it("rule 6: the state after a ReAct run holds human, ai, tool, ai with usage metadata", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "agent", {
      input: { messages: [{ role: "user", content: "What is (2 + 3) * 4?" }] },
    });
    const joined = await client.runs.join(thread.thread_id, run.run_id);
    assert.deepEqual(messageTypes(joined), ["human", "ai", "tool", "ai"]);
    const state = await client.threads.getState(thread.thread_id);
    const messages = (state.values as { messages: Array<Record<string, unknown>> }).messages;
    assert.deepEqual(messageTypes(state.values), ["human", "ai", "tool", "ai"]);
    const [human, call, tool, answer] = messages;
    assert.equal(human?.content, "What is (2 + 3) * 4?");
    const toolCalls = call?.tool_calls as Array<Record<string, unknown>>;
    assert.equal(toolCalls[0]?.name, "calculator");
    assert.deepEqual(Object.keys(toolCalls[0] ?? {}).sort(), ["args", "id", "name", "type"]);
    assert.equal(tool?.content, "20");
    assert.equal(tool?.tool_call_id, toolCalls[0]?.id);
    assert.match(String(answer?.content), /20/);
    for (const ai of [call, answer]) {
      const usage = ai?.usage_metadata as {
        input_tokens: number;
        output_tokens: number;
        total_tokens: number;
      };
      assert.ok(Number.isInteger(usage.input_tokens) && Number.isInteger(usage.output_tokens));
      assert.equal(usage.total_tokens, usage.input_tokens + usage.output_tokens);
      for (const key of [
        "id",
        "name",
        "additional_kwargs",
        "response_metadata",
        "example",
        "invalid_tool_calls",
      ]) {
        assert.ok(key in (ai ?? {}), `ai message has ${key}`);
      }
    }
    assert.deepEqual(state.next, []);
    const wire = state as unknown as Record<string, unknown>;
    assert.ok(wire.checkpoint_id && wire.parent_checkpoint_id, "flat checkpoint ids are present too");
    assert.equal(state.checkpoint?.checkpoint_id, wire.checkpoint_id);
    const metadata = state.metadata as Record<string, unknown>;
    for (const key of [
      "step",
      "run_id",
      "source",
      "writes",
      "user_id",
      "graph_id",
      "thread_id",
      "created_by",
      "assistant_id",
    ]) {
      assert.ok(key in metadata, `state metadata has ${key}`);
    }
    assert.equal(metadata.run_id, run.run_id);
    assert.equal(metadata.graph_id, "agent");
    assert.equal(typeof metadata.step, "number");
    assert.ok((metadata.writes as Record<string, unknown>).agent, "writes name the node of the last step");
  });

  it("rule 3: reject on a busy thread is a 409 and the original run still succeeds", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, "slow", { input: sleepy(1500, "first") });
    const status = await statusOf(
      client.runs.create(thread.thread_id, "slow", {
        input: sleepy(0, "second"),
        multitaskStrategy: "reject",
      }),
    );
    assert.equal(status, 409);
    await client.runs.join(thread.thread_id, first.run_id);
    assert.equal((await client.runs.get(thread.thread_id, first.run_id)).status, "success");
    const runs = await client.runs.list(thread.thread_id);
    assert.equal(runs.length, 1, "the rejected run was not created");
  });

  it("rule 4: enqueued runs execute in order and the state holds both runs' messages in that order", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, "slow", { input: sleepy(600, "one") });
    const second = await client.runs.create(thread.thread_id, "slow", {
      input: sleepy(0, "two"),
      multitaskStrategy: "enqueue",
    });
    assert.equal(second.status, "pending");
    await client.runs.join(thread.thread_id, second.run_id);
    assert.equal((await client.runs.get(thread.thread_id, first.run_id)).status, "success");
    const state = await client.threads.getState(thread.thread_id);
    const contents = (state.values as { messages: Array<{ content: string }> }).messages.map(
      (m) => m.content,
    );
    assert.deepEqual(contents, ["one sleep 600", "done: one sleep 600", "two sleep 0", "done: two sleep 0"]);
  });

  it("rules 1–2: the default strategy is enqueue and the record shows the strategy applied", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const byDefault = await client.runs.create(thread.thread_id, "slow", { input: sleepy(300, "a") });
    assert.equal(byDefault.multitask_strategy, "enqueue");
    const queued = await client.runs.create(thread.thread_id, "slow", { input: sleepy(0, "b") });
    assert.equal(queued.status, "pending", "a second run without a strategy is queued, not rejected");
    await client.runs.join(thread.thread_id, queued.run_id);
    const other = await client.threads.create();
    const rejecting = await client.runs.create(other.thread_id, "slow", {
      input: sleepy(0, "c"),
      multitaskStrategy: "reject",
    });
    assert.equal(rejecting.multitask_strategy, "reject");
    await client.runs.join(other.thread_id, rejecting.run_id);
  });
});
