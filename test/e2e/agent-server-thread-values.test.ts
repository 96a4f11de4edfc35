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
