// The thread a run leaves behind (values, status, interrupts) is the state GET /threads/{id}/state
// reads from the checkpoint, whatever the graph's shape: the server takes a finished run's values
// from its last streamed `values` chunk only when that chunk is the whole state (issue 12).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Client } from "@langchain/langgraph-sdk";
import { useFixtureServer } from "./helpers.js";

const ctx = useFixtureServer();

const hello = { messages: [{ role: "user", content: "hello there" }] };

async function runAndCompare(
  client: Client,
  graph: string,
  options: Record<string, unknown>,
): Promise<{ values: Record<string, unknown>; status: string; next: string[] }> {
  const thread = await client.threads.create();
  await client.runs.wait(thread.thread_id, graph, options);
  const after = await client.threads.get(thread.thread_id);
  const state = await client.threads.getState(thread.thread_id);
  assert.deepEqual(after.values, state.values, `${graph}: thread values are the checkpoint's state`);
  assert.equal(after.status, state.next.length > 0 ? "interrupted" : "idle", `${graph}: thread status`);
  const interruptedTasks = state.tasks.filter((t) => t.interrupts.length > 0).map((t) => t.id);
  assert.deepEqual(
    Object.keys(after.interrupts ?? {}).sort(),
    interruptedTasks.sort(),
    `${graph}: interrupts`,
  );
  return { values: after.values as Record<string, unknown>, status: after.status, next: state.next };
}

describe("a thread's values after a run", () => {
  it("is the whole state for a messages graph, a ReAct agent and a nested graph", async () => {
    const client = ctx.client();
    const echo = await runAndCompare(client, "echo", { input: hello });
    assert.equal((echo.values.messages as unknown[]).length, 2);
    await runAndCompare(client, "agent", {
      input: { messages: [{ role: "user", content: "What is 6 times 7?" }] },
    });
    const nested = await runAndCompare(client, "nested", { input: { count: 0 } });
    assert.deepEqual(nested.values, { count: 112 }, "the subgraph's own values chunks are not the thread's");
  });

  it("is the whole state when the graph's output schema is narrower than its state", async () => {
    const narrow = await runAndCompare(ctx.client(), "narrow", { input: { question: "why" } });
    assert.deepEqual(narrow.values, {
      question: "why",
      notes: ["thinking about why"],
      answer: "why? 1 note(s)",
    });
  });

  it("is the functional API's return value", async () => {
    const func = await runAndCompare(ctx.client(), "func", { input: 21 });
    assert.deepEqual(func.values, { doubled: 42 });
  });

  it("is the state at an interrupt, dynamic or static, with its next tasks", async () => {
    const client = ctx.client();
    const review = await runAndCompare(client, "review", { input: hello });
    assert.equal(review.status, "interrupted");
    assert.deepEqual(review.next, ["review"]);
    const before = await runAndCompare(client, "echo", { input: hello, interruptBefore: ["echo"] });
    assert.equal(before.status, "interrupted");
    assert.deepEqual(before.next, ["echo"]);
    const after = await runAndCompare(client, "echo", { input: hello, interruptAfter: ["echo"] });
    assert.equal(after.status, "idle", "nothing is next after the last node");
  });

  it("is the whole state when the run streamed no values", async () => {
    const updates = await runAndCompare(ctx.client(), "echo", { input: hello, streamMode: ["updates"] });
    assert.equal((updates.values.messages as unknown[]).length, 2);
  });
});

describe("a chat thread's values over many turns", () => {
  it("stay the checkpoint's state, and are what wait and join answer", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    for (let turn = 1; turn <= 12; turn += 1) {
      const input = { messages: [{ role: "user", content: `What is ${turn} * 7?` }] };
      let answered: unknown;
      if (turn % 2 === 0) answered = await client.runs.wait(thread.thread_id, "agent", { input });
      else {
        const run = await client.runs.create(thread.thread_id, "agent", { input });
        answered = await client.runs.join(thread.thread_id, run.run_id);
      }
      const after = await client.threads.get(thread.thread_id);
      const state = await client.threads.getState(thread.thread_id);
      assert.deepEqual(after.values, state.values, `turn ${turn}: thread values are the checkpoint's state`);
      assert.deepEqual(answered, after.values, `turn ${turn}: the run's answer is the thread's values`);
      const messages = (after.values as { messages: Array<{ type: string; content: unknown }> }).messages;
      assert.equal(messages.length, turn * 4, `turn ${turn}: every turn added its four messages`);
      assert.match(String(messages.at(-1)?.content), new RegExp(`\\b${turn * 7}\\b`));
    }
    // A stateless run's answer crosses from the worker with the end signal.
    const stateless = (await client.runs.wait(null, "agent", {
      input: { messages: [{ role: "user", content: "What is 3 * 7?" }] },
    })) as { messages: Array<{ content: unknown }> };
    assert.equal(stateless.messages.length, 4);
    assert.match(String(stateless.messages.at(-1)?.content), /\b21\b/);
  });

  it("show a message that graph code edited in place, and history keeps it as it was", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const say = (content: string) =>
      client.runs.wait(thread.thread_id, "edits", { input: { messages: [{ role: "user", content }] } });
    await say("hello");
    await say("again");
    const answered = (await say("edit first")) as { messages: Array<{ content: unknown }> };
    const after = await client.threads.get(thread.thread_id);
    const state = await client.threads.getState(thread.thread_id);
    const firstOf = (values: unknown) =>
      (values as { messages: Array<{ content: unknown }> }).messages[0]?.content;
    assert.equal(firstOf(after.values), "hello (edited)", "the thread's values show the edit");
    assert.deepEqual(after.values, state.values, "and are the checkpoint's state");
    assert.deepEqual(answered, after.values, "and what the run answered");
    const history = await client.threads.getHistory(thread.thread_id, { limit: 100 });
    const withMessages = history.filter(
      (h) => ((h.values as { messages?: unknown[] }).messages ?? []).length,
    );
    assert.equal(firstOf(withMessages[0]?.values), "hello (edited)", "the latest checkpoint has the edit");
    assert.equal(firstOf(withMessages.at(-1)?.values), "hello", "an earlier checkpoint keeps what it stored");
    // The next run reads the edited message back from storage, as any reader would.
    await say("one more");
    assert.equal(firstOf((await client.threads.getState(thread.thread_id)).values), "hello (edited)");
  });
});
