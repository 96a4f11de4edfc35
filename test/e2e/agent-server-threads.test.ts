// Thread management through the SDK: search, count, patch, delete, copy, state update, history.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { messageTypes, sleepy, statusOf, useFixtureServer } from "./helpers.js";

const ctx = useFixtureServer();
const ask = (content: string) => ({ messages: [{ role: "user", content }] });

describe("threads API", () => {
  it("searches and counts by metadata, values and status, with sort and pagination", async () => {
    const client = ctx.client();
    const tag = `t-${Date.now()}`;
    const a = await client.threads.create({ metadata: { tag, owner: "ann" } });
    const b = await client.threads.create({ metadata: { tag, owner: "bob" } });
    await client.runs.wait(b.thread_id, "echo", { input: ask("hello bob") });
    const mine = await client.threads.search({ metadata: { tag } });
    assert.deepEqual(mine.map((t) => t.thread_id).sort(), [a.thread_id, b.thread_id].sort());
    const anns = await client.threads.search({ metadata: { tag, owner: "ann" } });
    assert.deepEqual(
      anns.map((t) => t.thread_id),
      [a.thread_id],
    );
    const byValue = await client.threads.search({
      metadata: { tag },
      values: { messages: [{ content: "hello bob" }] },
    });
    assert.deepEqual(
      byValue.map((t) => t.thread_id),
      [b.thread_id],
    );
    const idle = await client.threads.search({
      metadata: { tag },
      status: "idle",
      sortBy: "created_at",
      sortOrder: "asc",
    });
    assert.deepEqual(
      idle.map((t) => t.thread_id),
      [a.thread_id, b.thread_id],
    );
    const page = await client.threads.search({
      metadata: { tag },
      limit: 1,
      offset: 1,
      sortBy: "created_at",
      sortOrder: "asc",
    });
    assert.deepEqual(
      page.map((t) => t.thread_id),
      [b.thread_id],
    );
    assert.equal(await client.threads.count({ metadata: { tag } }), 2);
    assert.equal(await client.threads.count({ metadata: { tag, owner: "bob" } }), 1);
  });

  it("patch merges metadata; delete removes the thread, its runs and state", async () => {
    const client = ctx.client();
    const thread = await client.threads.create({ metadata: { a: 1 } });
    const patched = await client.threads.update(thread.thread_id, { metadata: { b: 2 } });
    assert.deepEqual(patched.metadata, { a: 1, b: 2 });
    const run = await client.runs.create(thread.thread_id, "slow", { input: sleepy(2000, "bye") });
    await client.threads.delete(thread.thread_id);
    assert.equal(await statusOf(client.threads.get(thread.thread_id)), 404);
    assert.equal(await statusOf(client.runs.get(thread.thread_id, run.run_id)), 404);
    assert.equal(await statusOf(client.threads.delete(thread.thread_id)), 404);
  });

  it("copy makes a new thread with the same state", async () => {
    const client = ctx.client();
    const thread = await client.threads.create({ metadata: { origin: "copy-test" } });
    await client.runs.wait(thread.thread_id, "echo", { input: ask("original") });
    const copy = await client.threads.copy(thread.thread_id);
    assert.notEqual(copy.thread_id, thread.thread_id);
    const state = await client.threads.getState(copy.thread_id);
    assert.deepEqual(messageTypes(state.values), ["human", "ai"]);
    assert.equal((state.metadata as Record<string, unknown>).thread_id, copy.thread_id);
    await client.runs.wait(copy.thread_id, "echo", { input: ask("only in the copy") });
    assert.equal(messageTypes((await client.threads.getState(thread.thread_id)).values).length, 2);
    assert.equal(messageTypes((await client.threads.getState(copy.thread_id)).values).length, 4);
  });

  it("updates state as a node, forks from a checkpoint, and refuses while busy", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    // No graph to update through yet: 400, as the official server answers.
    assert.equal(await statusOf(client.threads.updateState(thread.thread_id, { values: {} })), 400);
    await client.runs.wait(thread.thread_id, "echo", { input: ask("first") });
    const before = await client.threads.getState(thread.thread_id);
    const updated = await client.threads.updateState(thread.thread_id, {
      values: { messages: [{ type: "ai", content: "added by a person" }] },
      asNode: "echo",
    });
    // The official server answers {checkpoint}, with the older `configurable` (what the SDK's type
    // reads) and `checkpoint_id` beside it.
    const answer = updated as unknown as {
      checkpoint: { checkpoint_id: string; thread_id: string };
      checkpoint_id: string;
    };
    assert.ok(answer.checkpoint.checkpoint_id);
    assert.equal(answer.checkpoint.thread_id, thread.thread_id);
    assert.deepEqual(updated.configurable, answer.checkpoint);
    assert.equal(answer.checkpoint_id, answer.checkpoint.checkpoint_id);
    const after = await client.threads.getState(thread.thread_id);
    assert.equal(
      (after.values as { messages: Array<{ content: string }> }).messages.at(-1)?.content,
      "added by a person",
    );
    assert.equal((await client.threads.get(thread.thread_id)).status, "idle");
    const at = await client.threads.getState(thread.thread_id, before.checkpoint.checkpoint_id ?? undefined);
    assert.equal(messageTypes(at.values).length, 2, "the state at the older checkpoint");
    const busy = await client.runs.create(thread.thread_id, "slow", { input: sleepy(800, "busy") });
    assert.equal(await statusOf(client.threads.updateState(thread.thread_id, { values: {} })), 409);
    await client.runs.join(thread.thread_id, busy.run_id);
  });

  it("history lists states newest first with before, limit and a metadata filter", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, "agent", { input: ask("What is 1 + 1?") });
    await client.runs.join(thread.thread_id, first.run_id);
    const second = await client.runs.create(thread.thread_id, "echo", { input: ask("again") });
    await client.runs.join(thread.thread_id, second.run_id);
    const history = await client.threads.getHistory(thread.thread_id, { limit: 100 });
    assert.ok(history.length >= 6);
    const steps = history.map((s) => (s.metadata as { step: number }).step);
    assert.deepEqual(
      steps.slice(0, 3),
      [...steps.slice(0, 3)].sort((x, y) => y - x),
      "newest first",
    );
    assert.deepEqual(messageTypes(history[0]?.values), ["human", "ai", "tool", "ai", "human", "ai"]);
    const limited = await client.threads.getHistory(thread.thread_id, { limit: 2 });
    assert.equal(limited.length, 2);
    const older = await client.threads.getHistory(thread.thread_id, {
      limit: 1,
      before: { configurable: { checkpoint_id: history[0]?.checkpoint.checkpoint_id ?? undefined } },
    });
    assert.equal(older[0]?.checkpoint.checkpoint_id, history[1]?.checkpoint.checkpoint_id);
    const ofFirst = await client.threads.getHistory(thread.thread_id, {
      limit: 100,
      metadata: { run_id: first.run_id },
    });
    assert.ok(ofFirst.length > 0);
    assert.ok(ofFirst.every((s) => (s.metadata as { run_id: string }).run_id === first.run_id));
    const withWrites = history.find((s) => (s.metadata as { source: string }).source === "loop");
    assert.ok(withWrites, "history has loop checkpoints");
    assert.ok((withWrites.metadata as { writes: unknown }).writes, "loop checkpoints name their writes");
  });
});
