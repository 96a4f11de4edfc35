// Streaming, wait, stateless runs and cancellation through the official SDK.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { messageTypes, sleepy, statusOf, untilRunning, useFixtureServer } from "./helpers.js";

const ctx = useFixtureServer({ BERTH_STREAM_HEARTBEAT_MS: "200" });
const ask = (content: string) => ({ messages: [{ role: "user", content }] });

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const part of stream) out.push(part);
  return out;
}

describe("streaming", () => {
  it("streams values with a metadata event first", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    let created: { run_id: string; thread_id?: string } | undefined;
    const parts = await collect(
      client.runs.stream(thread.thread_id, "agent", {
        input: ask("What is 2 + 2?"),
        streamMode: "values",
        onRunCreated: (meta) => {
          created = meta;
        },
      }),
    );
    assert.equal(parts[0]?.event, "metadata");
    const meta = parts[0]?.data as unknown as { run_id: string; attempt: number };
    assert.equal(meta.attempt, 1);
    assert.equal(created?.run_id, meta.run_id, "Content-Location names the run");
    const values = parts.filter((p) => p.event === "values");
    assert.ok(values.length >= 4, "one values event per step");
    assert.deepEqual(messageTypes(values.at(-1)?.data), ["human", "ai", "tool", "ai"]);
    const run = await client.runs.get(thread.thread_id, meta.run_id);
    assert.equal(run.status, "success");
  });

  it("streams updates, messages-tuple and synthesised messages events", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const parts = await collect(
      client.runs.stream(thread.thread_id, "agent", {
        input: ask("weather in Oslo?"),
        streamMode: ["updates", "messages-tuple", "messages"],
      }),
    );
    const names = new Set(parts.map((p) => p.event as string));
    for (const name of ["metadata", "updates", "messages", "messages/complete"]) {
      assert.ok(names.has(name), `has ${name} (got ${[...names].join(", ")})`);
    }
    // The scripted model does not stream tokens: like the official JS server, no partials for it.
    assert.ok(!names.has("messages/partial"), "no messages/partial without model tokens");
    assert.ok(!names.has("values"), "only the requested modes");
    const updates = parts.filter((p) => p.event === "updates").map((p) => Object.keys(p.data as object)[0]);
    assert.deepEqual(updates, ["agent", "tools", "agent"]);
    const tuple = parts.find((p) => p.event === "messages")?.data as [
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    assert.equal(tuple[0].type, "ai");
    assert.equal(tuple[1].langgraph_node, "agent");
  });

  it("sends heartbeats during silence and ends the stream when the run ends", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const response = await fetch(`${ctx.server().url}/threads/${thread.thread_id}/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "slow", input: sleepy(700, "quiet") }),
    });
    assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
    const text = await response.text();
    assert.match(text, /: heartbeat/);
    assert.match(text, /^event: metadata\ndata: .*\nid: \d+\n\n/);
    assert.match(text, /event: values/);
  });

  it("reports a failing graph as an error event", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const parts = await collect(client.runs.stream(thread.thread_id, "failing", { input: { messages: [] } }));
    const error = parts.find((p) => p.event === "error")?.data as { error: string; message: string };
    assert.equal(error.error, "Error");
    assert.match(error.message, /boom/);
  });

  it("joinStream of a resumable run replays from Last-Event-ID with no gap or duplicate", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "agent", {
      input: ask("count these words please"),
      streamMode: ["values", "updates"],
      streamResumable: true,
    });
    await client.runs.join(thread.thread_id, run.run_id);
    const all = await collect(client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1" }));
    const ids = all.map((p) => Number((p as { id?: string }).id));
    const start = ids[0] ?? 0;
    assert.deepEqual(
      ids,
      ids.map((_, i) => start + i),
      "consecutive ids in order",
    );
    const tail = await collect(
      client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: String(ids[2]) }),
    );
    assert.deepEqual(
      tail.map((p) => (p as { id?: string }).id),
      all.slice(3).map((p) => (p as { id?: string }).id),
    );
    const onlyUpdates = await collect(
      client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1", streamMode: "updates" }),
    );
    assert.ok(onlyUpdates.every((p) => p.event === "updates" || p.event === "metadata"));
  });

  it("joinStream of a finished non-resumable run returns at once", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "echo", { input: ask("x") });
    await client.runs.join(thread.thread_id, run.run_id);
    const started = performance.now();
    const parts = await collect(client.runs.joinStream(thread.thread_id, run.run_id));
    assert.deepEqual(parts, []);
    assert.ok(performance.now() - started < 2000);
  });
});

describe("wait and stateless runs", () => {
  it("runs.wait on a thread returns the final values", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const values = await client.runs.wait(thread.thread_id, "agent", { input: ask("What is 3 * 3?") });
    assert.deepEqual(messageTypes(values), ["human", "ai", "tool", "ai"]);
  });

  it("stateless runs use a temporary thread, deleted afterwards unless on_completion is keep", async () => {
    const client = ctx.client();
    const values = (await client.runs.wait(null, "echo", { input: ask("stateless") })) as {
      messages: Array<{ content: string }>;
    };
    assert.equal(values.messages.at(-1)?.content, "stateless");
    const dropped = await client.runs.create(null, "echo", { input: ask("dropped") });
    // The run may finish, and its temporary thread (with the run) be deleted, before join asks:
    // then join is a 404. Either way the thread must end up gone.
    const joined = await statusOf(client.runs.join(dropped.thread_id, dropped.run_id));
    assert.ok(joined === 200 || joined === 404, `join answered ${joined}`);
    assert.equal(await statusOf(client.threads.get(dropped.thread_id)), 404, "the temporary thread is gone");
    // The SDK's runs.create does not send on_completion: post it as a client would by hand.
    const response = await fetch(`${ctx.server().url}/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "echo", input: ask("kept"), on_completion: "keep" }),
    });
    const kept = (await response.json()) as { run_id: string; thread_id: string };
    assert.equal(response.headers.get("content-location"), `/runs/${kept.run_id}`);
    await client.runs.join(kept.thread_id, kept.run_id);
    const thread = await client.threads.get(kept.thread_id);
    assert.deepEqual(messageTypes(thread.values), ["human", "ai"]);
  });

  it("a failing run makes runs.wait throw with the graph's error", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    await assert.rejects(client.runs.wait(thread.thread_id, "failing", { input: { messages: [] } }), /boom/);
  });

  it("stateless stream and background runs work", async () => {
    const client = ctx.client();
    const parts = await collect(client.runs.stream(null, "echo", { input: ask("hello") }));
    assert.equal(parts[0]?.event, "metadata");
    assert.ok(parts.some((p) => p.event === "values"));
    const run = await client.runs.create(null, "echo", { input: ask("bg") });
    assert.equal(run.status, "pending");
    const batch = await client.runs.createBatch([
      { assistantId: "echo", input: ask("b1") },
      { assistantId: "echo", input: ask("b2") },
    ]);
    assert.equal(batch.length, 2);
  });

  it("stream_mode events streams LangGraph's events next to the other modes", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const parts = await collect(
      client.runs.stream(thread.thread_id, "agent", {
        input: ask("What is 5 * 5?"),
        streamMode: ["events", "values"],
      }),
    );
    const events = parts.filter((p) => p.event === "events").map((p) => (p.data as { event: string }).event);
    for (const kind of [
      "on_chain_start",
      "on_chain_end",
      "on_chat_model_start",
      "on_chat_model_end",
      "on_tool_start",
      "on_tool_end",
    ]) {
      assert.ok(events.includes(kind), `has ${kind}`);
    }
    const values = parts.filter((p) => p.event === "values");
    assert.deepEqual(messageTypes(values.at(-1)?.data), ["human", "ai", "tool", "ai"]);
  });
});

describe("cancel and delete", () => {
  it("cancel interrupts a running run; wait returns once it has stopped", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", { input: sleepy(10_000, "long") });
    await untilRunning(client, thread.thread_id, run.run_id);
    const started = performance.now();
    await client.runs.cancel(thread.thread_id, run.run_id, true);
    assert.ok(performance.now() - started < 2000, "cancelled within 2 s");
    assert.equal((await client.runs.get(thread.thread_id, run.run_id)).status, "interrupted");
    assert.notEqual((await client.threads.get(thread.thread_id)).status, "busy");
  });

  it("cancel of a pending run ends it at once; rollback deletes it", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, "slow", { input: sleepy(800, "a") });
    const second = await client.runs.create(thread.thread_id, "slow", { input: sleepy(0, "b") });
    const third = await client.runs.create(thread.thread_id, "slow", { input: sleepy(0, "c") });
    await client.runs.cancel(thread.thread_id, second.run_id);
    assert.equal((await client.runs.get(thread.thread_id, second.run_id)).status, "interrupted");
    await client.runs.cancel(thread.thread_id, third.run_id, false, "rollback");
    assert.equal(await statusOf(client.runs.get(thread.thread_id, third.run_id)), 404);
    await client.runs.join(thread.thread_id, first.run_id);
    assert.equal((await client.threads.get(thread.thread_id)).status, "idle");
  });

  it("cancel racing completion ends in exactly one terminal status", async () => {
    const client = ctx.client();
    for (let i = 0; i < 5; i += 1) {
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, "echo", { input: ask(`race ${i}`) });
      await client.runs.cancel(thread.thread_id, run.run_id, true);
      const status = (await client.runs.get(thread.thread_id, run.run_id)).status;
      assert.ok(status === "success" || status === "interrupted", status);
      assert.notEqual((await client.threads.get(thread.thread_id)).status, "busy");
    }
  });

  it("deletes a finished run; an active one is 409", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const busy = await client.runs.create(thread.thread_id, "slow", { input: sleepy(500, "d") });
    assert.equal(await statusOf(client.runs.delete(thread.thread_id, busy.run_id)), 409);
    await client.runs.join(thread.thread_id, busy.run_id);
    await client.runs.delete(thread.thread_id, busy.run_id);
    assert.equal(await statusOf(client.runs.get(thread.thread_id, busy.run_id)), 404);
  });
});
