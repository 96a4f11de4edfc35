// Berth's PostgreSQL checkpointer holding a run's writes back (WRITE_BEHIND_KEY): the run's steps
// reach PostgreSQL in fewer statements, the process reads its own writes, what is stored equals the
// official saver's, and a write that fails is reported by `settle` with nothing stored past it.
// Needs DATABASE_URL (skips without).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AIMessage } from "@langchain/core/messages";
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { WRITE_BEHIND_KEY } from "../src/storage/checkpoint-metadata.js";
import { postgresCheckpointer } from "../src/storage/postgres/checkpoint-admin.js";
import { checkpointerSchemas, recordQueries, TEST_DATABASE_URL } from "./postgres.js";

const url = TEST_DATABASE_URL;

/** Three nodes one after another; `first` runs inside the first (before it answers). */
function chainOn(checkpointer: BaseCheckpointSaver, first: () => Promise<void> = async () => {}) {
  const say = (name: string) => async (state: typeof MessagesAnnotation.State) => {
    if (name === "a") await first();
    return { messages: [new AIMessage({ content: `${name} ${state.messages.length}` })] };
  };
  return new StateGraph(MessagesAnnotation)
    .addNode("a", say("a"))
    .addNode("b", say("b"))
    .addNode("c", say("c"))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("b", "c")
    .compile({ checkpointer });
}

/** The thread's messages and the history's steps, as a client would see them. */
async function observe(graph: ReturnType<typeof chainOn>, threadId: string) {
  const config = { configurable: { thread_id: threadId } };
  const state = await graph.getState(config);
  const steps = [];
  for await (const snapshot of graph.getStateHistory(config)) steps.push(snapshot.metadata?.step);
  const messages = (state.values.messages ?? []) as Array<{ content: unknown }>;
  return { messages: messages.map((m) => m.content), steps };
}

describe("Berth's PostgreSQL checkpointer holding a run's writes back", {
  skip: url === undefined ? "DATABASE_URL is not set" : false,
}, () => {
  const checkpointers = checkpointerSchemas(url);
  /** Both savers, and the inserts into Berth's schema counted. */
  async function savers() {
    const made = await checkpointers();
    const inserts = recordQueries(
      made.pool,
      (text) => /insert into/i.test(text) && text.includes(made.schema),
    );
    return { ...made, inserts };
  }

  it("sends a run's five checkpoints and four tasks' writes in at most two statements, reads its own back before they are committed, and stores what the official saver stores", async () => {
    const { berth, official, pool, schema, inserts } = await savers();
    const behind = { configurable: { thread_id: "w1", [WRITE_BEHIND_KEY]: true } };
    const graph = chainOn(berth);
    await graph.invoke({ messages: [{ role: "user", content: "hi" }] }, behind);
    // The process's own read waits for the writes it has not seen committed.
    const own = await berth.getTuple({ configurable: { thread_id: "w1" } });
    assert.equal((own?.checkpoint.channel_values.messages as unknown[] | undefined)?.length, 4);
    await berth.settle("w1");
    // Checkpoints of steps -1 to 3, writes of __start__, a, b and c: nine statements one by one.
    assert.ok(inserts.length <= 2, `${inserts.length} statements`);
    const officialGraph = chainOn(official);
    await officialGraph.invoke(
      { messages: [{ role: "user", content: "hi" }] },
      { configurable: { thread_id: "w1" } },
    );
    // Another process (a saver of its own on the same tables) sees the same as the official one.
    const other = chainOn(postgresCheckpointer(pool, schema).saver);
    assert.deepEqual(await observe(other, "w1"), await observe(officialGraph, "w1"));
    assert.deepEqual((await observe(other, "w1")).messages, ["hi", "a 1", "b 2", "c 3"]);
  });

  it("reports a write that failed at settle, fails the thread's later writes at once, and stores nothing past it", async () => {
    const { berth, pool, schema } = await savers();
    // PostgreSQL refuses the checkpoint of step 1 (the one after node a).
    await pool.query(`
      create function "${schema}".refuse_step_1() returns trigger language plpgsql as $$
      begin
        if new.metadata->>'step' = '1' then raise exception 'step 1 refused'; end if;
        return new;
      end $$;
      create trigger refuse_step_1 before insert on "${schema}".checkpoints
        for each row execute function "${schema}".refuse_step_1();`);
    const behind = { configurable: { thread_id: "w2", [WRITE_BEHIND_KEY]: true } };
    // Node a sends what the run holds so far (steps -1 and 0), so step 1 goes in a later statement.
    const graph = chainOn(berth, () => berth.flush("w2"));
    // Resolved before the failure is known: the run's writes resolve once queued.
    await graph.invoke({ messages: [{ role: "user", content: "hi" }] }, behind);
    await berth.flush("w2");
    // Another run's writes on the thread fail at once, before anything is sent.
    await assert.rejects(
      graph.invoke({ messages: [{ role: "user", content: "again" }] }, behind),
      /step 1 refused/,
    );
    await assert.rejects(berth.settle("w2"), /step 1 refused/);
    // Reported once.
    await berth.settle("w2");
    const other = chainOn(postgresCheckpointer(pool, schema).saver);
    assert.deepEqual(await observe(other, "w2"), { messages: ["hi"], steps: [0, -1] });
    // The process's own read agrees (what it held of the thread was forgotten).
    assert.deepEqual(await observe(graph, "w2"), { messages: ["hi"], steps: [0, -1] });
  });
});
