import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { closedLoop, type LoopLimits, type PhaseResult } from "./loops.js";
import { checkAnswer, type GraphId, graphEntry, runInput } from "./workload.js";

/** The parts of a compiled graph the floor needs. */
interface InvocableGraph {
  invoke(input: unknown, config: { configurable: { thread_id: string } }): Promise<unknown>;
  checkpointer?: unknown;
}

function isInvocable(value: unknown): value is InvocableGraph {
  return typeof value === "object" && value !== null && typeof Reflect.get(value, "invoke") === "function";
}

export interface FloorPlan {
  warmup: number;
  sequential: LoopLimits;
  concurrency: number;
  /** Runs on one thread before a loop moves to a fresh one (as the HTTP clients do). */
  runsPerThread: number;
  concurrent: LoopLimits;
}

export interface FloorResult {
  /** Fresh thread per invocation, one at a time (mirrors the server latency phase). */
  sequential: PhaseResult;
  /** `concurrency` loops, each invoking again and again on its own thread (mirrors the HTTP clients). */
  concurrent: PhaseResult;
  /** CPU the floor process used per invocation in the concurrent phase: what a run costs at least. */
  concurrentCpuMsPerRun: number;
}

export type FloorPhase = "sequential" | "concurrent";

/**
 * The best an HTTP server could do with this graph and this checkpointer: `graph.invoke` in the
 * same process, no HTTP, no queue, no run bookkeeping. Imports the same TypeScript module the
 * servers load (this process runs under tsx) and gives it a SqliteSaver on a file opened with the
 * pragmas Berth uses (WAL, synchronous=NORMAL), so only the server's own work separates the two.
 */
export async function measureFloor(
  graphId: GraphId,
  dataDir: string,
  plan: FloorPlan,
  progress: (line: string) => void,
  onPhase: (phase: FloorPhase, result: PhaseResult) => void,
): Promise<FloorResult> {
  const { modulePath, exportName } = graphEntry(graphId);
  const mod = (await import(pathToFileURL(modulePath).href)) as Record<string, unknown>;
  const graph = mod[exportName];
  if (!isInvocable(graph)) throw new Error(`${modulePath} export "${exportName}" is not a compiled graph`);

  fs.mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, `floor-${graphId}.sqlite`));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  const saver = new SqliteSaver(db);
  // The compiled graph is a module singleton: restore whatever it had so later imports are unaffected.
  const previous = graph.checkpointer;
  graph.checkpointer = saver;
  const invoke = async (threadId: string) =>
    checkAnswer(graphId, await graph.invoke(runInput(), { configurable: { thread_id: threadId } }));
  try {
    for (let i = 0; i < plan.warmup; i += 1) await invoke(randomUUID());

    progress(`floor ${graphId}: sequential graph.invoke (fresh thread each)`);
    const sequential = await closedLoop({
      clients: 1,
      limits: plan.sequential,
      setup: async () => undefined,
      prepare: async () => randomUUID(),
      measure: async (_client, threadId) => {
        await invoke(threadId ?? randomUUID());
      },
      progress,
    });
    onPhase("sequential", sequential);

    progress(`floor ${graphId}: ${plan.concurrency} concurrent graph.invoke loops (one thread each)`);
    const cpu0 = process.cpuUsage();
    const concurrent = await closedLoop({
      clients: plan.concurrency,
      limits: plan.concurrent,
      setup: async () => ({ threadId: randomUUID(), runsOnThread: 0 }),
      measure: async (state) => {
        if (state.runsOnThread >= plan.runsPerThread) {
          state.threadId = randomUUID();
          state.runsOnThread = 0;
        }
        state.runsOnThread += 1;
        await invoke(state.threadId);
      },
      progress,
    });
    const cpu = process.cpuUsage(cpu0);
    onPhase("concurrent", concurrent);
    const concurrentCpuMsPerRun = (cpu.user + cpu.system) / 1000 / Math.max(1, concurrent.completed);
    return { sequential, concurrent, concurrentCpuMsPerRun };
  } finally {
    graph.checkpointer = previous;
    db.close();
  }
}

/** One line of the floor worker's stdout. */
export type FloorMessage =
  | { kind: "progress"; line: string }
  | { kind: "phase"; phase: FloorPhase; result: PhaseResult }
  | { kind: "result"; result: FloorResult }
  | { kind: "error"; message: string };

const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), "floor-worker.ts");

/**
 * Runs `measureFloor` in a fresh Node process: the bench process has by then made thousands of
 * HTTP requests, and its heap and JIT state would tax the floor with garbage collection that a
 * server process, started fresh, does not pay.
 */
export function measureFloorInChild(
  graphId: GraphId,
  dataDir: string,
  plan: FloorPlan,
  progress: (line: string) => void,
  onPhase: (phase: FloorPhase, result: PhaseResult) => void,
): Promise<FloorResult> {
  const child = spawn(
    process.execPath,
    [...process.execArgv, WORKER, JSON.stringify({ graphId, dataDir, plan })],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4_000);
  });
  return new Promise((resolve, reject) => {
    let result: FloorResult | undefined;
    let failure: string | undefined;
    createInterface({ input: child.stdout }).on("line", (line) => {
      let message: FloorMessage;
      try {
        message = JSON.parse(line) as FloorMessage;
      } catch {
        return;
      }
      if (message.kind === "progress") progress(message.line);
      else if (message.kind === "phase") onPhase(message.phase, message.result);
      else if (message.kind === "result") result = message.result;
      else failure = message.message;
    });
    child.once("error", reject);
    child.once("close", (code) => {
      if (result) resolve(result);
      else reject(new Error(failure ?? `floor worker exited with code ${code}: ${stderr.trim()}`));
    });
  });
}
