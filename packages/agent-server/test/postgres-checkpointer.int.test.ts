// Berth's PostgreSQL checkpointer (one statement per checkpoint and per task's writes) against the
// official PostgresSaver it extends: the same graph run on both, with an interrupt and its resume,
// must leave the same state, history and pending writes. Needs DATABASE_URL (skips without).
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { AIMessage } from "@langchain/core/messages";
import { Command, interrupt, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { postgresCheckpointer } from "../src/storage/postgres/checkpoints.js";
import { dropSchemas, freshSchemaName, TEST_DATABASE_URL } from "./postgres.js";

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

/** What a client could see of a thread: values, next, interrupts, and the history's shape. */
async function observe(graph: ReturnType<typeof graphOn>, threadId: string) {
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
  const schemas: string[] = [];
  const pools: pg.Pool[] = [];
  after(async () => {
    await Promise.all(pools.map((p) => p.end()));
    if (url) await dropSchemas(url, schemas);
  });

  async function savers() {
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    pools.push(pool);
    const ours = freshSchemaName();
    const theirs = freshSchemaName();
    schemas.push(ours, theirs);
    const berth = postgresCheckpointer(pool, ours).saver;
    const official = new PostgresSaver(pool, undefined, { schema: theirs });
    await berth.setup();
    await official.setup();
    return { berth, official };
  }

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
});
