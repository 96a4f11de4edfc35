import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import {
  type Checkpoint,
  type CheckpointMetadata,
  copyCheckpoint,
  JsonPlusSerializer,
} from "@langchain/langgraph-checkpoint";
import Database from "better-sqlite3";
import { decodeDelta, encodeDelta } from "../src/storage/sqlite/checkpoint-deltas.js";
import { openSqliteCheckpointer } from "../src/storage/sqlite/checkpoints.js";

// Checkpoint rows stored as changes to their parents (CheckpointChains): every checkpoint must read
// back as the official serializer would have written it, from a cold saver too (a restart), after
// a rollback deleted rows others were stored against, and on a copied thread whose source is gone.

const official = new JsonPlusSerializer();
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const dirs: string[] = [];
after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A chat whose every answer is ~1.5 KB, so that a few turns make a list worth storing as a change. */
function chatGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode("answer", (state: typeof MessagesAnnotation.State) => ({
      messages: [
        new AIMessage({ content: `answer ${state.messages.length}: ${"lorem ipsum ".repeat(120)}` }),
      ],
    }))
    .addNode("note", () => ({ messages: [new AIMessage({ content: "noted" })] }))
    .addEdge("__start__", "answer")
    .addEdge("answer", "note")
    .compile();
}

/** A checkpointer on a new file; `expected`: every checkpoint as the official serializer writes it. */
function open(file?: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-chains-"));
  dirs.push(dir);
  const where = file ?? path.join(dir, "checkpoints.sqlite");
  const opened = openSqliteCheckpointer(where);
  const expected = new Map<string, string>();
  const put = opened.saver.put.bind(opened.saver);
  opened.saver.put = async (config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata) => {
    expected.set(checkpoint.id, text((await official.dumpsTyped(copyCheckpoint(checkpoint)))[1]));
    return put(config, checkpoint, metadata);
  };
  return { ...opened, file: where, expected };
}

async function chat(saver: unknown, threadId: string, turns: number, runPrefix = "run") {
  const graph = chatGraph();
  graph.checkpointer = saver as typeof graph.checkpointer;
  for (let i = 0; i < turns; i += 1) {
    const config = { configurable: { thread_id: threadId, run_id: `${runPrefix}-${i}` } };
    await graph.invoke({ messages: [new HumanMessage({ content: `question ${i}` })] }, config);
  }
}

function rowTypes(file: string, threadId: string): Map<string, number> {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db
      .prepare("SELECT type, count(*) AS n FROM checkpoints WHERE thread_id = ? GROUP BY type")
      .all(threadId) as Array<{ type: string; n: number }>;
    return new Map(rows.map((r) => [r.type, r.n]));
  } finally {
    db.close();
  }
}

/** Every checkpoint of the thread, read by a saver that kept nothing (a new process). */
async function assertReadsBack(
  file: string,
  threadId: string,
  expected: Map<string, string>,
  from = threadId,
) {
  const cold = openSqliteCheckpointer(file);
  try {
    let count = 0;
    for await (const tuple of cold.saver.list({ configurable: { thread_id: threadId } })) {
      const id = tuple.config.configurable?.checkpoint_id as string;
      assert.equal(
        text((await official.dumpsTyped(tuple.checkpoint))[1]),
        expected.get(id),
        `checkpoint ${id}`,
      );
      count += 1;
    }
    assert.ok(count > 0);
    // One by one, newest first then oldest first: a chain is followed from any cache state.
    const ids = [...expected.keys()];
    for (const order of [ids.slice().reverse(), ids]) {
      const fresh = openSqliteCheckpointer(file);
      try {
        for (const id of order) {
          const config: RunnableConfig = {
            configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: id },
          };
          const tuple = await fresh.saver.getTuple(config);
          if (!tuple) continue; // deleted (rollback)
          assert.equal(
            text((await official.dumpsTyped(tuple.checkpoint))[1]),
            expected.get(id),
            `${from}: ${id}`,
          );
        }
      } finally {
        fresh.close();
      }
    }
    return count;
  } finally {
    cold.close();
  }
}

describe("SQLite checkpoints stored as changes to their parents", () => {
  it("stores a growing chat's checkpoints mostly as changes, and every one reads back as written", async () => {
    const { saver, close, file, expected } = open();
    await chat(saver, "t1", 30);
    const types = rowTypes(file, "t1");
    assert.ok((types.get("berth-delta-1") ?? 0) > 60, `rows by type: ${JSON.stringify([...types])}`);
    // A read follows at most 16 changes: never more than 16 in a row along the thread's one branch.
    const chain = new Database(file, { readonly: true });
    const ordered = chain
      .prepare("SELECT type FROM checkpoints WHERE thread_id = ? ORDER BY checkpoint_id")
      .all("t1") as Array<{ type: string }>;
    chain.close();
    let inRow = 0;
    for (const { type } of ordered) {
      inRow = type === "berth-delta-1" ? inRow + 1 : 0;
      assert.ok(inRow <= 16, "a full row at least every 17 rows");
    }
    // The bytes stored are a fraction of what whole rows would be.
    const db = new Database(file, { readonly: true });
    const stored = db.prepare("SELECT sum(length(checkpoint)) AS n FROM checkpoints").get() as { n: number };
    db.close();
    const whole = [...expected.values()].reduce((n, json) => n + Buffer.byteLength(json), 0);
    assert.ok(stored.n < whole / 3, `stored ${stored.n} bytes for ${whole} bytes of checkpoints`);
    // The live saver reads its latest write, and a cold one every row.
    const latest = await saver.getTuple({ configurable: { thread_id: "t1" } });
    assert.equal((latest?.checkpoint.channel_values.messages as unknown[] | undefined)?.length, 30 * 3);
    close();
    assert.equal(await assertReadsBack(file, "t1", expected), expected.size);
    // A restarted server goes on with the thread from the stored rows.
    const again = openSqliteCheckpointer(file);
    await chat(again.saver, "t1", 3, "later");
    const graph = chatGraph();
    graph.checkpointer = again.saver;
    const state = await graph.getState({ configurable: { thread_id: "t1" } });
    assert.equal((state.values as { messages: unknown[] }).messages.length, 33 * 3);
    again.close();
  });

  it("rewrites whole the rows stored against a rolled-back run's rows before deleting them", async () => {
    const { saver, admin, close, file, expected } = open();
    await chat(saver, "t2", 12);
    // A run whose last row the next run's first row is stored against.
    const before = new Database(file, { readonly: true });
    const runOf = (alias: string) => `json_extract(CAST(${alias}.metadata AS TEXT), '$.run_id')`;
    const { run } = before
      .prepare(
        `SELECT ${runOf("p")} AS run FROM checkpoints c JOIN checkpoints p ON p.thread_id = c.thread_id
         AND p.checkpoint_id = c.parent_checkpoint_id WHERE c.type = 'berth-delta-1' AND ${runOf("c")} <> ${runOf("p")}
         ORDER BY c.checkpoint_id LIMIT 1`,
      )
      .get() as { run: string };
    before.close();
    await admin.deleteRunCheckpoints("t2", run);
    const db = new Database(file, { readonly: true });
    const orphans = db
      .prepare(
        `SELECT count(*) AS n FROM checkpoints c WHERE c.type = 'berth-delta-1' AND NOT EXISTS
         (SELECT 1 FROM checkpoints p WHERE p.thread_id = c.thread_id AND p.checkpoint_ns = c.checkpoint_ns
          AND p.checkpoint_id = c.parent_checkpoint_id)`,
      )
      .get() as { n: number };
    db.close();
    assert.equal(orphans.n, 0);
    close();
    const left = await assertReadsBack(file, "t2", expected);
    assert.equal(
      left,
      expected.size - expected.size / 12,
      "the run's checkpoints are gone, every other one reads",
    );
  });

  it("reads a copied thread whose source was deleted", async () => {
    const { saver, admin, close, file, expected } = open();
    await chat(saver, "source", 10);
    await admin.copyThread("source", "copy");
    await admin.deleteThread("source");
    close();
    assert.equal(await assertReadsBack(file, "copy", expected, "copy"), expected.size);
  });

  it("stores a checkpoint whole when its parent was deleted by another process", async () => {
    const { saver, close, file } = open();
    await chat(saver, "t3", 5); // 20 rows: the last a change, 12 after a full one
    const latest = await saver.getTuple({ configurable: { thread_id: "t3" } });
    assert.ok(latest);
    const other = new Database(file);
    other
      .prepare("DELETE FROM checkpoints WHERE checkpoint_id = ?")
      .run(latest.config.configurable?.checkpoint_id);
    other.close();
    const next: Checkpoint = {
      ...copyCheckpoint(latest.checkpoint),
      id: "1f0ffff0-0000-6000-8000-000000000000",
      channel_values: {
        ...latest.checkpoint.channel_values,
        messages: [
          ...(latest.checkpoint.channel_values.messages as unknown[]),
          new AIMessage({ content: "x", id: "x" }),
        ],
      },
    };
    await saver.put(latest.config, next, { source: "update", step: 99, parents: {} });
    assert.ok((rowTypes(file, "t3").get("berth-delta-1") ?? 0) > 0, "the thread's rows before were changes");
    const db = new Database(file, { readonly: true });
    const row = db.prepare("SELECT type FROM checkpoints WHERE checkpoint_id = ?").get(next.id) as {
      type: string;
    };
    db.close();
    assert.equal(row.type, "json");
    close();
    const cold = openSqliteCheckpointer(file);
    const read = await cold.saver.getTuple({
      configurable: { thread_id: "t3", checkpoint_ns: "", checkpoint_id: next.id },
    });
    assert.equal((read?.checkpoint.channel_values.messages as unknown[] | undefined)?.length, 5 * 3 + 1);
    cold.close();
  });

  it("refuses a change that does not fit its parent rather than reading wrong bytes", () => {
    const parent = Buffer.from('{"messages":[1,2,3],"x":1}');
    const full = Buffer.from('{"messages":[1,2,3,4],"x":2}');
    const delta = encodeDelta(full, [{ at: 12, from: 12, length: 5 }]);
    assert.equal(Buffer.from(decodeDelta(delta, parent)).toString(), full.toString());
    assert.throws(() => decodeDelta(delta, parent.subarray(0, 10)), /cannot be read/);
    assert.throws(() => decodeDelta(delta.subarray(0, delta.length - 1), parent), /cannot be read/);
    assert.throws(() => decodeDelta(Buffer.from("not a header\n{}"), parent), /cannot be read/);
  });
});
