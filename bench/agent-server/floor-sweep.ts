// The turn sweep of chat-phases.ts without a server: `graph.invoke` in this process on 32 threads
// advanced in lockstep, with turn-1 control waves beside them, on the official SqliteSaver or on
// Berth's (its serializer). It says how much of a run's growth with the thread is LangGraph's and
// the checkpointer's, before any HTTP, queue or run bookkeeping. Build first (Berth's saver is
// imported from packages/agent-server/dist). Usage:
//   node --import tsx bench/agent-server/floor-sweep.ts [--graph echo|agent] [--saver official|berth] [--turns 52]
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { CONTROL_EVERY } from "./chat-phases.js";
import { checkAnswer, type GraphId, graphEntry, runInput } from "./workload.js";

const { values } = parseArgs({
  options: {
    graph: { type: "string", default: "agent" },
    saver: { type: "string", default: "berth" },
    turns: { type: "string", default: "52" },
    threads: { type: "string", default: "32" },
  },
});
const graphId = values.graph as GraphId;
const threads = Number(values.threads);
const lastTurn = Number(values.turns);
const { modulePath, exportName } = graphEntry(graphId);
const graph = (await import(pathToFileURL(modulePath).href))[exportName] as {
  checkpointer: unknown;
  invoke(input: unknown, config: unknown): Promise<unknown>;
};
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-floor-sweep-"));
let close: () => void;
if (values.saver === "official") {
  const db = new Database(path.join(dir, "checkpoints.sqlite"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  graph.checkpointer = new SqliteSaver(db);
  close = () => db.close();
} else {
  // The dist module Berth's server opens its checkpoint file with (WAL checkpoints on a worker thread).
  const dist = "../../packages/agent-server/dist/storage/sqlite/checkpoints.js";
  const { openSqliteCheckpointer } = (await import(dist)) as {
    openSqliteCheckpointer(
      file: string,
      options: { backgroundCheckpoints: boolean },
    ): { saver: BaseCheckpointSaver; close(): void };
  };
  const opened = openSqliteCheckpointer(path.join(dir, "checkpoints.sqlite"), {
    backgroundCheckpoints: true,
  });
  graph.checkpointer = opened.saver;
  close = opened.close;
}
const invoke = async (threadId: string) =>
  checkAnswer(graphId, await graph.invoke(runInput(), { configurable: { thread_id: threadId } }));
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const waves: Array<{ turn: number; controlAfter?: number; cpuMsPerRun: number }> = [];
async function wave(turn: number, ids: string[], controlAfter?: number): Promise<void> {
  const cpu0 = cpuMs();
  await Promise.all(ids.map(invoke));
  waves.push({
    turn,
    cpuMsPerRun: (cpuMs() - cpu0) / ids.length,
    ...(controlAfter === undefined ? {} : { controlAfter }),
  });
}
const fresh = () => Array.from({ length: threads }, () => randomUUID());
const mean = (pick: (w: (typeof waves)[number]) => boolean) => {
  const picked = waves.filter(pick);
  return picked.reduce((sum, w) => sum + w.cpuMsPerRun, 0) / Math.max(1, picked.length);
};
try {
  for (let i = 0; i < 50; i += 1) await invoke(randomUUID());
  for (let i = 0; i < 4; i += 1) await wave(1, fresh(), 0);
  const ids = fresh();
  for (let t = 1; t <= lastTurn; t += 1) {
    await wave(t, ids);
    if (t % CONTROL_EVERY === 0) await wave(1, fresh(), t);
  }
  const mid = Math.min(50, lastTurn - 2);
  const atMid = mean((w) => w.controlAfter === undefined && w.turn >= mid - 2 && w.turn <= mid + 2);
  const controls = mean(
    (w) => w.controlAfter !== undefined && w.controlAfter >= mid - 10 && w.controlAfter <= mid + 10,
  );
  const load = fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  process.stdout.write(
    `floor, ${values.saver} saver, ${graphId}, ${threads} threads: CPU ms/run at turn 1 ${mean((w) => w.turn === 1).toFixed(2)}, ` +
      `turn ${mid} ${atMid.toFixed(2)}, turn 1 beside it ${controls.toFixed(2)}: ${(atMid / controls).toFixed(2)}×; load average ${load}\n`,
  );
} finally {
  close();
  fs.rmSync(dir, { recursive: true, force: true });
}
