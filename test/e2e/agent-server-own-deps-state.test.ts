// Issue 10, thread state and streams: a project with its own node_modules, run through `berth dev`
// with the official SDK, gets the official JS server's thread states (subgraph tasks, factory graphs,
// supersteps) and stream payloads (debug checkpoints, messages events).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Checkpoint } from "@langchain/langgraph-sdk";
import { useOwnDepsServer } from "./own-deps-helpers.js";

const ctx = useOwnDepsServer("esm");
const ask = (content: string) => ({ messages: [{ role: "user", content }] });

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const part of stream) out.push(part);
  return out;
}

type Task = {
  id: string;
  name: string;
  checkpoint: Record<string, unknown> | null;
  state: { values: Record<string, unknown>; next: string[]; tasks: Task[] } | null;
  interrupts: Array<{ value: unknown }>;
};

describe("thread state and streams of a project with its own node_modules (issue 10)", () => {
  it("a thread's values, status and interrupts after a run are its checkpoint's state, with the project's own LangGraph (issue 12)", async () => {
    const client = ctx.client();
    for (const [graph, input] of [
      ["chat", ask("hello")],
      ["nested", { topic: "ships" }],
    ] as const) {
      const thread = await client.threads.create();
      await client.runs.wait(thread.thread_id, graph, { input });
      const after = await client.threads.get(thread.thread_id);
      const state = await client.threads.getState(thread.thread_id);
      assert.deepEqual(after.values, state.values, `${graph}: values`);
      assert.equal(after.status, state.next.length > 0 ? "interrupted" : "idle", `${graph}: status`);
      const interrupted = state.tasks.filter((t) => t.interrupts.length > 0).map((t) => t.id);
      assert.deepEqual(
        Object.keys(after.interrupts ?? {}).sort(),
        interrupted.sort(),
        `${graph}: interrupts`,
      );
    }
  });

  it("a task running a subgraph carries its checkpoint, and with subgraphs=true its state, like the official JS server (defect 5)", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "nested", { input: { topic: "ships" } });

    const state = await client.threads.getState(thread.thread_id);
    const [task] = state.tasks as unknown as Task[];
    assert.equal(task?.name, "inner");
    assert.deepEqual(task?.checkpoint, {
      thread_id: thread.thread_id,
      checkpoint_ns: `inner:${task?.id}`,
    });
    assert.equal(task?.state, null, "no nested state unless subgraphs=true");

    // The task's checkpoint names the subgraph's own state (POST /threads/{id}/state/checkpoint).
    const inner = await client.threads.getState(thread.thread_id, task?.checkpoint as unknown as Checkpoint);
    assert.deepEqual(inner.values, { topic: "SHIPS" });
    assert.deepEqual(inner.next, ["ask"]);

    const checkNested = (nested: { tasks: unknown[] }, how: string) => {
      const [t] = nested.tasks as Task[];
      assert.equal(
        t?.checkpoint,
        null,
        `${how}: the state replaces the reference, as the official server does`,
      );
      assert.deepEqual(t?.state?.values, { topic: "SHIPS" }, how);
      assert.deepEqual(t?.state?.next, ["ask"], how);
      assert.deepEqual(t?.state?.tasks[0]?.interrupts[0]?.value, { question: "What about SHIPS?" }, how);
    };
    checkNested(await client.threads.getState(thread.thread_id, undefined, { subgraphs: true }), "GET state");
    checkNested(
      await client.threads.getState(thread.thread_id, state.checkpoint, { subgraphs: true }),
      "POST state/checkpoint",
    );
    checkNested(
      await client.threads.getState(thread.thread_id, state.checkpoint.checkpoint_id ?? "", {
        subgraphs: true,
      }),
      "GET state/{checkpoint_id}",
    );

    const done = (await client.runs.wait(thread.thread_id, "nested", { command: { resume: "tall" } })) as {
      answer?: string;
    };
    assert.equal(done.answer, "tall");
  });

  it("debug checkpoint events carry checkpoint / parent_checkpoint, subgraph tasks a checkpoint, like the official JS server (defect 6)", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const parts = await collect(
      client.runs.stream(thread.thread_id, "nested", { input: { topic: "ships" }, streamMode: "debug" }),
    );
    type Payload = Record<string, unknown> & { tasks: Array<Record<string, unknown>> };
    const checkpoints = parts
      .filter((p) => p.event === "debug")
      .map((p) => p.data as unknown as { type: string; payload: Payload })
      .filter((d) => d.type === "checkpoint")
      .map((d) => d.payload);
    assert.ok(checkpoints.length >= 3, `checkpoint events (got ${checkpoints.length})`);
    const ids = new Set<unknown>();
    for (const [i, payload] of checkpoints.entries()) {
      assert.ok(!("parentConfig" in payload), "no raw parentConfig");
      const ref = payload.checkpoint as Record<string, unknown>;
      assert.equal(ref.thread_id, thread.thread_id);
      assert.equal(ref.checkpoint_ns, "");
      assert.equal(typeof ref.checkpoint_id, "string");
      assert.ok("checkpoint_map" in ref);
      if (i > 0) {
        const parent = payload.parent_checkpoint as Record<string, unknown>;
        assert.ok(ids.has(parent.checkpoint_id), "parent_checkpoint names an earlier checkpoint");
      } else assert.equal(payload.parent_checkpoint, null);
      ids.add(ref.checkpoint_id);
      const configurable = (payload.config as { configurable: Record<string, unknown> }).configurable;
      assert.ok(
        Object.keys(configurable).every((k) => !k.startsWith("__")),
        "LangGraph's internal keys are not sent",
      );
    }
    const withInner = checkpoints.find((p) => p.tasks.some((t) => t.name === "inner"));
    const inner = withInner?.tasks.find((t) => t.name === "inner");
    assert.ok(inner, "a checkpoint lists the subgraph task");
    assert.ok(!("state" in inner), "the raw state config is replaced");
    assert.deepEqual(inner.checkpoint, {
      thread_id: thread.thread_id,
      checkpoint_id: null,
      checkpoint_ns: `inner:${inner.id}`,
      checkpoint_map: null,
    });
  });

  it("a factory graph is built with the thread's config on the state endpoints, which records the run's config, like the official JS server (defect 7)", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const last = (values: unknown) =>
      (values as { messages: Array<{ content: string }> }).messages.at(-1)?.content;
    const first = await client.runs.wait(thread.thread_id, "factory", {
      input: ask("hi"),
      config: { configurable: { model_name: "m1" } },
    });
    assert.equal(last(first), "answered by m1");
    assert.deepEqual((await client.threads.get(thread.thread_id)).config, {
      configurable: { model_name: "m1" },
    });

    // The factory throws without configurable.model_name: these read and write through it.
    assert.equal(last((await client.threads.getState(thread.thread_id)).values), "answered by m1");
    const history = await client.threads.getHistory(thread.thread_id);
    assert.ok(history.length >= 2, `history (got ${history.length})`);
    const updated = await client.threads.updateState(thread.thread_id, {
      values: { messages: [{ role: "ai", content: "edited" }] },
      asNode: "reply",
    });
    assert.equal(
      typeof (updated as unknown as { checkpoint: Checkpoint }).checkpoint.checkpoint_id,
      "string",
    );
    assert.equal(last((await client.threads.getState(thread.thread_id)).values), "edited");
    await assert.rejects(
      client.threads.updateState(thread.thread_id, { values: { messages: [] }, asNode: "no-such-node" }),
      (error: { status?: number }) => error.status === 422,
      "an invalid update is a 422, not a 500",
    );

    // A later run without config keeps the thread's: the factory is built for model m1 again.
    const second = await client.runs.wait(thread.thread_id, "factory", { input: ask("again") });
    assert.equal(last(second), "answered by m1");
  });

  it("POST /threads with supersteps builds that history with bulk state updates, like the official servers (defect 8)", async () => {
    const client = ctx.client();
    const typed = (values: unknown) =>
      (values as { messages: Array<{ type: string; content: string }> }).messages.map((m) => [
        m.type,
        m.content,
      ]);
    // The documented shape: an input step, the user's message as __start__, the reply as its node.
    const thread = await client.threads.create({
      graphId: "chat",
      supersteps: [
        { updates: [{ values: {}, asNode: "__input__" }] },
        { updates: [{ values: { messages: [{ type: "human", content: "hi" }] }, asNode: "__start__" }] },
        { updates: [{ values: { messages: [{ type: "ai", content: "hello" }] }, asNode: "model" }] },
      ],
    });
    assert.equal(thread.status, "idle");
    assert.deepEqual(typed(thread.values), [
      ["human", "hi"],
      ["ai", "hello"],
    ]);
    const state = await client.threads.getState(thread.thread_id);
    assert.deepEqual(state.next, []);
    const history = await client.threads.getHistory(thread.thread_id);
    assert.deepEqual(
      history.map((h) => [h.metadata?.source, h.metadata?.step]),
      [
        ["update", 1],
        ["update", 0],
        ["input", -1],
      ],
      "one checkpoint per superstep",
    );
    const after = await client.runs.wait(thread.thread_id, "chat", {
      input: { messages: [{ role: "user", content: "again" }] },
    });
    assert.deepEqual(typed(after), [
      ["human", "hi"],
      ["ai", "hello"],
      ["human", "again"],
      ["ai", "Hello world"],
    ]);

    const refusedId = "00000000-0000-4000-8000-0000000000a8";
    await assert.rejects(
      client.threads.create({
        threadId: refusedId,
        graphId: "chat",
        supersteps: [{ updates: [{ values: { messages: [] }, asNode: "no-such-node" }] }],
      }),
      (error: { status?: number }) => error.status === 422,
    );
    await assert.rejects(client.threads.get(refusedId), (error: { status?: number }) => error.status === 404);
    await assert.rejects(
      client.threads.create({ supersteps: [{ updates: [{ values: {}, asNode: "model" }] }] }),
      (error: { status?: number; message?: string }) =>
        error.status === 422 && /graph/.test(error.message ?? ""),
      "supersteps need the thread's graph",
    );
  });

  it("messages with values: each step's values, then its messages/complete; partials only for model tokens, none for tool messages, like the official JS server (defect 11)", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    type Message = { id: string; type: string; content: string };
    const parts = (
      await collect(
        client.runs.stream(thread.thread_id, "tools", {
          input: ask("look it up"),
          streamMode: ["messages", "values"],
        }),
      )
    ).filter((p) => p.event !== "metadata");
    const names = parts.map((p) => p.event as string);
    // Collapse the token run: plan (no model), tools, then the streaming answer.
    const shape = names.filter((n, i) => n !== "messages/partial" || names[i - 1] !== "messages/partial");
    assert.deepEqual(shape, [
      "values",
      "messages/complete",
      "values",
      "messages/complete",
      "values",
      "messages/complete",
      "messages/metadata",
      "messages/partial",
      "values",
      "messages/complete",
    ]);
    // Each messages/complete holds exactly the messages its values event added.
    let seen: string[] = [];
    for (const [i, part] of parts.entries()) {
      if (part.event !== "messages/complete") continue;
      const values = parts[i - 1]?.data as { messages: Message[] };
      const now = values.messages.map((m) => m.id);
      assert.deepEqual(
        (part.data as Message[]).map((m) => m.id),
        now.filter((id) => !seen.includes(id)),
      );
      seen = now;
    }
    const completed = parts
      .filter((p) => p.event === "messages/complete")
      .flatMap((p) => p.data as Message[])
      .map((m) => m.type);
    assert.deepEqual(completed, ["human", "ai", "tool", "ai"]);
    const partials = parts.filter((p) => p.event === "messages/partial").map((p) => (p.data as Message[])[0]);
    assert.ok(
      partials.every((m) => m?.type === "ai" && "Found it".startsWith(m.content)),
      "partials are the model's tokens only: none for the tool message or the plan's message",
    );
    assert.equal(partials.at(-1)?.content, "Found it");
  });

  it("messages-tuple with values: LangGraph's message tuples, tool messages included, before their step's values, like the official JS server (defect 11)", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const parts = await collect(
      client.runs.stream(thread.thread_id, "tools", {
        input: ask("look it up"),
        streamMode: ["messages-tuple", "values"],
      }),
    );
    const names = new Set(parts.map((p) => p.event as string));
    assert.ok(!names.has("messages/complete") && !names.has("messages/partial"), "no messages/* events");
    type Message = { id: string; type: string; content: string };
    const tupleIndex = parts.findIndex(
      (p) => p.event === "messages" && (p.data as unknown as [Message])[0].type === "tool",
    );
    assert.ok(tupleIndex > 0, "the tool message has its tuple");
    const valuesWithTool = parts.findIndex(
      (p) =>
        p.event === "values" && (p.data as { messages: Message[] }).messages.some((m) => m.type === "tool"),
    );
    assert.ok(tupleIndex < valuesWithTool, "the tuple comes before the step's values");
    const tokens = parts
      .filter((p) => p.event === "messages")
      .map((p) => (p.data as unknown as [Message])[0])
      .filter((m) => m.type === "ai" && m.content);
    assert.equal(tokens.map((m) => m.content).join(""), "Found it");
  });

  it("messages/partial streams a subgraph's model tokens, unsuffixed, with or without stream_subgraphs, like the official JS server (defect 11)", async () => {
    const client = ctx.client();
    type Message = { type: string; content: string };
    for (const streamSubgraphs of [false, true]) {
      const thread = await client.threads.create();
      const parts = await collect(
        client.runs.stream(thread.thread_id, "team", {
          input: ask("write"),
          streamMode: ["messages", "values"],
          streamSubgraphs,
        }),
      );
      const names = parts.map((p) => p.event as string);
      const partials = parts
        .filter((p) => p.event === "messages/partial")
        .map((p) => (p.data as Message[])[0]);
      assert.equal(partials.at(-1)?.content, "Sub hello", `subgraphs=${streamSubgraphs}: the tokens stream`);
      assert.ok(
        names
          .filter((n) => n.startsWith("messages/partial") || n.startsWith("messages/metadata"))
          .every((n) => !n.includes("|")),
        "partials are not namespaced",
      );
      assert.equal(
        names.some((n) => n.startsWith("values|")),
        streamSubgraphs,
        "subgraph values only when asked",
      );
      const completed = parts
        .filter((p) => p.event === "messages/complete")
        .flatMap((p) => p.data as Message[])
        .map((m) => m.content);
      assert.deepEqual(completed, ["write", "Sub hello"], "the root state completes them");
    }
  });
});
