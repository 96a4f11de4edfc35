// Berth's PostgreSQL checkpointer (one statement per checkpoint and per task's writes) against the
// official PostgresSaver it extends: the same graph run on both, with an interrupt and its resume,
// must leave the same state, history and pending writes. Needs DATABASE_URL (skips without).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AIMessage } from "@langchain/core/messages";
import { Command, interrupt, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { postgresCheckpointer } from "../src/storage/postgres/checkpoint-admin.js";
import { checkpointerSchemas, recordQueries, TEST_DATABASE_URL } from "./postgres.js";

const url = TEST_DATABASE_URL;

function graphOn(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode("ask", (state: typeof MessagesAnnotation.State) => {
      const answer = interrupt({ question: `approve ${state.messages.length}?` }) as string;
      return { messages: [new AIMessage({ content: `answer: ${answer}` })] };
    })
    .addEdge(START, "ask")
    .compile({ checkpointer });
}

/** Two tasks at once from START: one answers at once, the other interrupts, then joins. */
function parallelOn(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode("fast", () => ({ messages: [new AIMessage({ content: "fast" })] }))
    .addNode("slow", () => {
      const answer = interrupt({ question: "slow?" }) as string;
      return { messages: [new AIMessage({ content: `slow: ${answer}` })] };
    })
    .addEdge(START, "fast")
    .addEdge(START, "slow")
    .compile({ checkpointer });
}

/** What a client could see of a thread: values, next, interrupts, and the history's shape. */
async function observe(
  graph: Pick<ReturnType<typeof graphOn>, "getState" | "getStateHistory">,
  threadId: string,
) {
  const config = { configurable: { thread_id: threadId } };
  const state = await graph.getState(config);
  const history = [];
  for await (const snapshot of graph.getStateHistory(config)) {
    history.push({
      step: snapshot.metadata?.step,
      source: snapshot.metadata?.source,
      next: snapshot.next,
      messages: (snapshot.values as { messages?: unknown[] }).messages?.length ?? 0,
      tasks: snapshot.tasks.map((t) => ({ name: t.name, interrupts: t.interrupts.map((i) => i.value) })),
    });
  }
  const messages = (state.values as { messages: Array<{ content: unknown; getType(): string }> }).messages;
  return {
    messages: messages.map((m) => [m.getType(), m.content]),
    next: state.next,
    interrupts: state.tasks.flatMap((t) => t.interrupts.map((i) => i.value)),
    history,
  };
}

describe("Berth's PostgreSQL checkpointer", {
  skip: url === undefined ? "DATABASE_URL is not set" : false,
}, () => {
  const savers = checkpointerSchemas(url);

  it("leaves the same state, history and interrupts as the official saver through an interrupt and two resumes", async () => {
    const { berth, official } = await savers();
    const seen = [];
    for (const saver of [berth, official]) {
      const graph = graphOn(saver);
      const config = { configurable: { thread_id: "t1" } };
      await graph.invoke({ messages: [{ role: "user", content: "first" }] }, config);
      await graph.invoke(new Command({ resume: "yes" }), config);
      await graph.invoke({ messages: [{ role: "user", content: "second" }] }, config);
      const interrupted = await observe(graph, "t1");
      await graph.invoke(new Command({ resume: "no" }), config);
      seen.push({ interrupted, done: await observe(graph, "t1") });
    }
    assert.deepEqual(seen[0], seen[1]);
    assert.deepEqual(seen[0]?.interrupted.interrupts, [{ question: "approve 3?" }]);
    assert.deepEqual(seen[0]?.done.messages.at(-1), ["ai", "answer: no"]);
  });

  it("keeps the official rule for two writes to the same special channel in one call (the later replaces)", async () => {
    const { berth, official } = await savers();
    const pending = [];
    for (const saver of [berth, official]) {
      const graph = graphOn(saver);
      const config = { configurable: { thread_id: "t2" } };
      await graph.invoke({ messages: [{ role: "user", content: "x" }] }, config);
      const tuple = await saver.getTuple(config);
      assert.ok(tuple);
      await saver.putWrites(
        tuple.config,
        [
          ["__error__", { message: "first" }],
          ["__error__", { message: "second" }],
        ],
        "task-1",
      );
      await saver.putWrites(
        tuple.config,
        [
          ["messages", ["a"]],
          ["messages", ["b"]],
        ],
        "task-2",
      );
      const after = await saver.getTuple(config);
      pending.push(after?.pendingWrites?.filter(([task]) => task === "task-1" || task === "task-2"));
    }
    assert.deepEqual(pending[0], pending[1]);
    assert.deepEqual(
      pending[0]?.find(([task]) => task === "task-1"),
      ["task-1", "__error__", { message: "second" }],
    );
  });
  it("leaves the same pending writes as the official saver when one of two parallel tasks interrupts", async () => {
    const { berth, official } = await savers();
    const seen = [];
    for (const saver of [berth, official]) {
      const graph = parallelOn(saver);
      const config = { configurable: { thread_id: "t3" } };
      await graph.invoke({ messages: [{ role: "user", content: "go" }] }, config);
      const tuple = await saver.getTuple(config);
      const interrupted = await observe(graph, "t3");
      await graph.invoke(new Command({ resume: "ok" }), config);
      seen.push({
        // Interrupt and message ids are minted per run (and Berth's serializer hands back the
        // message LangGraph gave an id): compared without them.
        pending: tuple?.pendingWrites
          ?.map(([, channel, value]) => [channel, JSON.stringify(value).replace(/,?"id":"[0-9a-f-]+"/g, "")])
          .sort(),
        interrupted,
        done: await observe(graph, "t3"),
      });
    }
    assert.deepEqual(seen[0], seen[1]);
    assert.ok(
      seen[0]?.pending?.some(([channel]) => channel === "messages"),
      "the finished task's writes are pending",
    );
    assert.deepEqual(
      seen[0]?.done.messages
        .slice(1)
        .map(([, content]) => content)
        .sort(),
      ["fast", "slow: ok"],
    );
  });

  it("sends a step's task writes with the next checkpoint: a one-node run in three statements, not five", async () => {
    const { berth, pool } = await savers();
    const sent = recordQueries(pool, () => true);
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("echo", (state: typeof MessagesAnnotation.State) => ({
        messages: [new AIMessage({ content: `echo ${state.messages.length}` })],
      }))
      .addEdge(START, "echo")
      .compile({ checkpointer: berth });
    const config = { configurable: { thread_id: "t4" } };
    await graph.invoke({ messages: [{ role: "user", content: "hi" }] }, config);
    sent.length = 0;
    await graph.invoke({ messages: [{ role: "user", content: "again" }] }, config);
    const writes = sent.filter((text) => /insert into/i.test(text));
    // Three checkpoints (input, step 0, step 1) and two tasks' writes (__start__, echo).
    assert.equal(writes.length, 3, writes.join("\n---\n"));
    assert.equal(writes.join("\n").match(/checkpoint_writes/g)?.length, 2);
    const state = await graph.getState(config);
    assert.deepEqual(
      (state.values.messages as Array<{ content: unknown }>).map((m) => m.content),
      ["hi", "echo 1", "again", "echo 3"],
    );
  });
  it("two processes taking turns on a thread read each other's checkpoints and writes, never a stale one of their own", async () => {
    const { berth, official, pool, schema } = await savers();
    // A second process: its own saver (and what it holds) on the same tables.
    const other = postgresCheckpointer(pool, schema).saver;
    const config = { configurable: { thread_id: "t5" } };
    const run = async (savers: BaseCheckpointSaver[]) => {
      const [first, second] = savers.map(graphOn);
      if (!first || !second) throw new Error("two graphs");
      await first.invoke({ messages: [{ role: "user", content: "one" }] }, config);
      await second.invoke(new Command({ resume: "a" }), config);
      await first.invoke({ messages: [{ role: "user", content: "two" }] }, config);
      // Writes added elsewhere to the checkpoint the first process wrote last.
      const saver = savers[1] as BaseCheckpointSaver;
      const latest = await saver.getTuple(config);
      assert.ok(latest);
      await saver.putWrites(latest.config, [["__error__", { message: "elsewhere" }]], "task-x");
      const seen = (await (savers[0] as BaseCheckpointSaver).getTuple(config))?.pendingWrites;
      await first.invoke(new Command({ resume: "b" }), config);
      return { seen: seen?.filter(([task]) => task === "task-x"), state: await observe(first, "t5") };
    };
    const ours = await run([berth, other]);
    const theirs = await run([official, official]);
    assert.deepEqual(ours, theirs);
    assert.deepEqual(ours.seen, [["task-x", "__error__", { message: "elsewhere" }]]);
    assert.deepEqual(
      ours.state.messages.map(([, content]) => content),
      ["one", "answer: a", "two", "answer: b"],
    );
  });
  it("answers a run's first read from what it holds only when the claim saw that checkpoint", async () => {
    const { berth, pool, schema } = await savers();
    const other = postgresCheckpointer(pool, schema).saver;
    const config = { configurable: { thread_id: "t6" } };
    const echo = (saver: BaseCheckpointSaver) =>
      new StateGraph(MessagesAnnotation)
        .addNode("echo", (state: typeof MessagesAnnotation.State) => ({
          messages: [new AIMessage({ content: `echo ${state.messages.length}` })],
        }))
        .addEdge(START, "echo")
        .compile({ checkpointer: saver });
    const reads = recordQueries(pool, (text) => /^\s*select/i.test(text));
    // Nothing yet: the claim saw no checkpoint, so the read is not sent.
    berth.expectLatest("t6", null);
    assert.equal(await berth.getTuple(config), undefined);
    assert.equal(reads.length, 0);
    await echo(berth).invoke({ messages: [{ role: "user", content: "a" }] }, config);
    const mine = await berth.getTuple(config);
    assert.ok(mine);
    // The claim saw the checkpoint this process wrote last: answered without a statement.
    reads.length = 0;
    berth.expectLatest("t6", { id: String(mine.config.configurable?.checkpoint_id), writes: 0 });
    assert.deepEqual((await berth.getTuple(config))?.checkpoint, mine.checkpoint);
    assert.equal(reads.length, 0);
    // Another process ran the thread since: the claim saw its checkpoint, so the read goes out.
    await echo(other).invoke({ messages: [{ role: "user", content: "b" }] }, config);
    const theirs = await other.getTuple(config);
    berth.expectLatest("t6", { id: String(theirs?.config.configurable?.checkpoint_id), writes: 0 });
    const state = await echo(berth).getState(config);
    assert.deepEqual(
      (state.values.messages as Array<{ content: unknown }>).map((m) => m.content),
      ["a", "echo 1", "b", "echo 3"],
    );
    assert.ok(reads.length > 0);
    // A withdrawn expectation is not used.
    reads.length = 0;
    const withdraw = berth.expectLatest("t6", null);
    withdraw();
    assert.ok(await berth.getTuple(config));
  });
});
