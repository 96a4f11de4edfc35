import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import type { RunnableConfig } from "@langchain/core/runnables";
import { Annotation, interrupt, Send, StateGraph } from "@langchain/langgraph";
import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { openSqliteCheckpointer } from "../src/storage/sqlite/checkpoints.js";

// The checkpoint file's writes share one commit per turn of the event loop (TurnCommits; on a file
// other processes write too, QueuedCommits): what a saver's promise reported stored is committed
// (another connection reads it), its task writes are the official saver's rows, and a turn whose
// transaction is lost rejects every write in it. On a shared file the write lock is not held
// while the graph's nodes run.

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-turns-"));
  dirs.push(dir);
  return path.join(dir, "checkpoints.sqlite");
}

/** Parallel tasks (Send), one of which interrupts on the first pass: task writes of every kind. */
function fanOutGraph() {
  const State = Annotation.Root({
    items: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    approved: Annotation<string>(),
  });
  return new StateGraph(State)
    .addNode("work", (task: { item: string }) => ({ items: [`done ${task.item}`] }))
    .addNode("review", () => ({ approved: interrupt({ question: "approve?" }) as string }))
    .addConditionalEdges("__start__", () => ["a", "b", "c"].map((item) => new Send("work", { item })))
    .addEdge("work", "review")
    .compile();
}

/** The writes table as another process reads it: every row but the ids that differ per run. */
function writesOf(file: string, threadId: string) {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db
      .prepare(
        "SELECT channel, idx, type, CAST(value AS TEXT) AS value FROM writes WHERE thread_id = ? ORDER BY channel, idx, CAST(value AS TEXT)",
      )
      .all(threadId) as Array<{ channel: string; value: string }>;
    // An interrupt's id hashes its checkpoint's: it differs from one file to the other.
    return rows.map((row) => ({ ...row, value: row.value.replace(/"id":"[0-9a-f]{32}"/g, '"id":"…"') }));
  } finally {
    db.close();
  }
}

function checkpointCount(file: string, threadId: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return (
      db.prepare("SELECT count(*) AS n FROM checkpoints WHERE thread_id = ?").get(threadId) as { n: number }
    ).n;
  } finally {
    db.close();
  }
}

describe("SQLite checkpoint writes committed once per turn", () => {
  for (const shared of [false, true])
    it(`a run's checkpoints and task writes (parallel tasks, an interrupt) are committed when it returns, as the official saver writes them${shared ? " (a file other processes write)" : ""}`, async () => {
      const oursFile = tempFile();
      const ours = openSqliteCheckpointer(oursFile, { shared });
      const theirsFile = tempFile();
      const theirs = SqliteSaver.fromConnString(theirsFile);
      try {
        for (const [saver, file] of [
          [ours.saver, oursFile],
          [theirs, theirsFile],
        ] as const) {
          const graph = fanOutGraph();
          graph.checkpointer = saver;
          const config = { configurable: { thread_id: "t1" } };
          const first = await graph.invoke({}, config);
          assert.ok("__interrupt__" in first, "the review interrupted");
          // Read by another connection while the saver is still open: nothing is left uncommitted.
          assert.ok(writesOf(file, "t1").some((w) => w.channel === "__interrupt__"));
          assert.equal(checkpointCount(file, "t1"), 3);
        }
        assert.deepEqual(writesOf(oursFile, "t1"), writesOf(theirsFile, "t1"));
        const [ourState, theirState] = await Promise.all(
          [ours.saver, theirs].map(async (saver) => {
            const tuple = await saver.getTuple({ configurable: { thread_id: "t1" } });
            return tuple?.pendingWrites?.map(([, channel, value]) => [
              channel,
              JSON.stringify(value).replace(/"id":"[0-9a-f]{32}"/g, ""),
            ]);
          }),
        );
        assert.deepEqual(ourState, theirState);
      } finally {
        ours.close();
        theirs.db.close();
      }
    });

  it("a turn whose transaction is lost rejects each of its writes; nothing of it is stored, and the saver goes on", async () => {
    const file = tempFile();
    const opened = openSqliteCheckpointer(file);
    const { saver } = opened;
    // Another connection makes one task write end the whole transaction (as SQLITE_FULL can).
    const other = new Database(file);
    other.exec(
      "CREATE TRIGGER boom BEFORE INSERT ON writes WHEN NEW.channel = 'boom' BEGIN SELECT RAISE(ROLLBACK, 'boom'); END",
    );
    other.close();
    const at = (id?: string): RunnableConfig => ({
      configurable: { thread_id: "t1", checkpoint_ns: "", ...(id ? { checkpoint_id: id } : {}) },
    });
    try {
      const first = { ...emptyCheckpoint(), id: "1ef00000-0000-6000-8000-000000000001" };
      const put = saver.put(at(), first, { source: "input", step: -1, parents: {} });
      put.catch(() => {});
      // The put is written (its own connection reads it) but not committed: the turn is not over.
      while (!(await saver.getTuple(at(first.id)))) await Promise.resolve();
      await assert.rejects(saver.putWrites(at(first.id), [["boom", 1]], "task-1"), /boom/);
      await assert.rejects(put, /boom/, "the put of the same turn is rolled back with it");
      assert.equal(checkpointCount(file, "t1"), 0);
      assert.equal(await saver.getTuple(at(first.id)), undefined);

      // The next turn starts afresh: a child of the lost checkpoint is stored whole and reads back.
      const second = { ...emptyCheckpoint(), id: "1ef00000-0000-6000-8000-000000000002" };
      await saver.put(at(first.id), second, { source: "loop", step: 0, parents: {} });
      await saver.putWrites(at(second.id), [["items", "x"]], "task-2");
      assert.equal(checkpointCount(file, "t1"), 1);
      const cold = openSqliteCheckpointer(file);
      try {
        const tuple = await cold.saver.getTuple(at());
        assert.equal(tuple?.checkpoint.id, second.id);
        assert.deepEqual(tuple?.pendingWrites, [["task-2", "items", "x"]]);
      } finally {
        cold.close();
      }
    } finally {
      opened.close();
    }
  });

  it("on a file other processes write, the lock is free while nodes run, a turn's writes commit together, and a write that fails alone is rejected alone", async () => {
    const file = tempFile();
    const opened = openSqliteCheckpointer(file, { shared: true });
    const { saver } = opened;
    // Another process's connection, which must not wait for the write lock: it fails at once.
    const other = new Database(file);
    other.pragma("busy_timeout = 0");
    const lockFree: boolean[] = [];
    const tryLock = () => {
      try {
        other.exec("BEGIN IMMEDIATE");
        other.exec("ROLLBACK");
        lockFree.push(true);
      } catch {
        lockFree.push(false);
      }
    };
    const State = Annotation.Root({
      items: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    const graph = new StateGraph(State)
      .addNode("one", () => {
        tryLock();
        return { items: ["one"] };
      })
      .addNode("two", () => {
        tryLock();
        return { items: ["two"] };
      })
      .addEdge("__start__", "one")
      .addEdge("one", "two")
      .compile({ checkpointer: saver });
    const at = (id?: string): RunnableConfig => ({
      configurable: { thread_id: "t2", checkpoint_ns: "", ...(id ? { checkpoint_id: id } : {}) },
    });
    try {
      await graph.invoke({ items: ["in"] }, at());
      assert.deepEqual(lockFree, [true, true], "the write lock was free while each node ran");
      assert.equal(checkpointCount(file, "t2"), 4);
      assert.deepEqual((await graph.getState(at())).values.items, ["in", "one", "two"]);

      // One write fails without ending the transaction (RAISE ABORT): the others of its turn stand.
      other.exec(
        "CREATE TRIGGER refuse BEFORE INSERT ON writes WHEN NEW.channel = 'refused' BEGIN SELECT RAISE(ABORT, 'refused'); END",
      );
      const latest = (await saver.getTuple(at()))?.config.configurable?.checkpoint_id as string;
      const kept = saver.putWrites(at(latest), [["items", "kept"]], "task-a");
      const refused = saver.putWrites(at(latest), [["refused", 1]], "task-b");
      refused.catch(() => {});
      // Read in the same turn, once both are queued (their serialisation takes a few microtasks;
      // the turn's commit waits for the next macrotask): the read runs them first.
      for (let i = 0; i < 50; i++) await Promise.resolve();
      const pending = (await saver.getTuple(at()))?.pendingWrites?.map(([task, channel]) => [task, channel]);
      assert.deepEqual(pending, [["task-a", "items"]]);
      await assert.rejects(refused, /refused/);
      await kept;

      // A write that ends the transaction (RAISE ROLLBACK) takes the turn's other writes with it.
      other.exec(
        "CREATE TRIGGER boom BEFORE INSERT ON writes WHEN NEW.channel = 'boom' BEGIN SELECT RAISE(ROLLBACK, 'boom'); END",
      );
      const next = { ...emptyCheckpoint(), id: "1ef00000-0000-6000-8000-0000000000ff" };
      const put = saver.put(at(latest), next, { source: "update", step: 9, parents: {} });
      const boom = saver.putWrites(at(latest), [["boom", 1]], "task-c");
      await assert.rejects(boom, /boom/);
      await assert.rejects(put, /boom/, "the put of the same turn is rolled back with it");
      assert.equal(checkpointCount(file, "t2"), 4);
      assert.deepEqual((await graph.getState(at())).values.items, ["in", "one", "two"]);
    } finally {
      other.close();
      opened.close();
    }
  });
});
