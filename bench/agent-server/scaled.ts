// The agent server scaled out, side by side with the embedded mode, in one run (issue 14's
// "Figures"): runs/s of create+join on the echo and ReAct graphs with 16 and 64 clients, the
// server CPU per run over all of a mode's processes, and the stream time to the first event.
// Modes: SQLite in one process; PostgreSQL + Redis with 1 API + 1 worker; with 1 API + 2 workers.
// Usage: node --import tsx bench/agent-server/scaled.ts [--quick] [--seconds 12] [--clients 16,64]
//        [--graph echo|agent|both] [--streams 100] [--model-ms 1000]
// --model-ms: the scripted model answers after that long (most real agents wait on a model): the
// PostgreSQL modes only, the agent graph, no stream phase, and the target for 2 workers / 1 is
// 1.8× at the same jobs per worker (issue 31 item 4; compare at 64 clients, where both saturate).
// Needs DATABASE_URL and REDIS_URL; build first (npm run build).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { type SpawnedServer, spawnBerth } from "@berth-platform/testkit";
import pg from "pg";
import type { PhaseResult } from "./loops.js";
import { runStream, runThroughput, warmUp } from "./scenarios.js";
import { EXAMPLE_GRAPH_CONFIG, GRAPH_IDS, type GraphId } from "./workload.js";

interface Mode {
  key: "sqlite" | "pg1" | "pg2";
  name: string;
  workers: number;
}

const MODES: Mode[] = [
  { key: "sqlite", name: "SQLite, 1 process", workers: 0 },
  { key: "pg1", name: "PG + Redis, 1 API + 1 worker", workers: 1 },
  { key: "pg2", name: "PG + Redis, 1 API + 2 workers", workers: 2 },
];

/** Targets of the issue. */
const TARGET_WORKER_SCALING = 1.6;
const TARGET_PG_VS_SQLITE = 0.5;
const TARGET_FIRST_EVENT_MS = 5;
/** As in run.ts: a client moves to a fresh thread every 10 runs (history size is not the server). */
const RUNS_PER_THREAD = 10;

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    seconds: { type: "string" },
    clients: { type: "string", default: "16,64" },
    graph: { type: "string", default: "both" },
    streams: { type: "string" },
    "model-ms": { type: "string" },
  },
});
const modelMs = values["model-ms"] === undefined ? 0 : Number(values["model-ms"]);
const quick = values.quick === true;
const seconds = Number(values.seconds ?? (quick ? 3 : 12));
const clientCounts = (values.clients ?? "16,64").split(",").map(Number);
const graphs: GraphId[] =
  modelMs > 0 && values.graph === "both"
    ? ["agent"]
    : values.graph === "both"
      ? [...GRAPH_IDS]
      : GRAPH_IDS.filter((graph) => graph === values.graph);
const streams = modelMs > 0 ? 0 : Number(values.streams ?? (quick ? 20 : 100));
const modes = modelMs > 0 ? MODES.filter((m) => m.key !== "sqlite") : MODES;
const targetScaling = modelMs > 0 ? 1.8 : TARGET_WORKER_SCALING;
if (graphs.length === 0) throw new Error("--graph: echo, agent or both");
if (!clientCounts.every((n) => Number.isInteger(n) && n > 0)) throw new Error("--clients: e.g. 16,64");
const databaseUrl = process.env.DATABASE_URL;
const redisUrl = process.env.REDIS_URL;
if (!databaseUrl || !redisUrl) throw new Error("DATABASE_URL and REDIS_URL are needed");

interface Throughput {
  phase: PhaseResult;
  /** Server CPU (user + system, every process of the mode) per completed run, in ms. */
  cpuMsPerRun: number;
}

interface ModeFigures {
  throughput: Map<number, Throughput>;
  firstEventP50: number;
  firstValuesP50: number;
  streamErrors: number;
}

/** Starts the processes of a mode; returns the API's URL, the pids and a stop function. */
async function startMode(mode: Mode): Promise<{ url: string; pids: number[]; stop(): Promise<void> }> {
  const processes: SpawnedServer[] = [];
  const base = ["serve", "--config", EXAMPLE_GRAPH_CONFIG, "--port", "0", "--host", "127.0.0.1"];
  // info: `berth serve` says where it listens in an info line (the only one it prints per start).
  const env: Record<string, string> = {
    BERTH_LOG_LEVEL: "info",
    N_JOBS_PER_WORKER: "10",
    ...(modelMs > 0 ? { BERTH_EXAMPLE_MODEL_LATENCY_MS: String(modelMs) } : {}),
  };
  let cleanup = async () => {};
  try {
    if (mode.workers === 0) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-bench-scaled-"));
      cleanup = async () => fs.rmSync(dir, { recursive: true, force: true });
      // One process (the embedded cluster of issue 12, `--workers N`, is another mode).
      processes.push(await spawnBerth([...base, "--data-dir", dir, "--workers", "1"], { env }));
    } else {
      const schema = `bench_${randomBytes(4).toString("hex")}`;
      Object.assign(env, {
        DATABASE_URI: databaseUrl,
        REDIS_URI: redisUrl,
        BERTH_DATABASE_SCHEMA: schema,
        REDIS_KEY_PREFIX: `${schema}:`,
      });
      cleanup = async () => {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        await client.query(`drop schema if exists "${schema}" cascade`);
        await client.end();
      };
      // The API first: it migrates the schema, so the workers do not wait on its lock.
      processes.push(await spawnBerth([...base, "--role", "api"], { env }));
      for (let i = 0; i < mode.workers; i++)
        processes.push(await spawnBerth([...base, "--role", "worker"], { env }));
    }
  } catch (error) {
    await Promise.all(processes.map((p) => p.stop()));
    await cleanup();
    throw error;
  }
  return {
    url: (processes[0] as SpawnedServer).url,
    pids: processes.map((p) => p.process.pid ?? 0),
    async stop() {
      await Promise.all(processes.map((p) => p.stop()));
      await cleanup();
    },
  };
}

const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;

/** CPU seconds (user + system) the processes used so far, from /proc (Linux). */
function cpuSeconds(pids: number[]): number {
  return pids.reduce((sum, pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return sum + (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    } catch {
      return sum;
    }
  }, 0);
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const loadAverage = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(", ");

const started = Date.now();
const loadBefore = loadAverage();
const figures = new Map<GraphId, Map<Mode["key"], ModeFigures>>(graphs.map((g) => [g, new Map()]));
for (const mode of modes) {
  log(`${mode.name}: starting`);
  const running = await startMode(mode);
  try {
    for (const graph of graphs) {
      await warmUp(running.url, graph, 5);
      const throughput = new Map<number, Throughput>();
      for (const clients of clientCounts) {
        const cpuBefore = cpuSeconds(running.pids);
        const phase = await runThroughput(
          running.url,
          graph,
          clients,
          RUNS_PER_THREAD,
          { perClient: Number.POSITIVE_INFINITY, maxMs: seconds * 1000 },
          (line) => log(`  ${graph} ${clients} clients ${line}`),
        );
        const cpu = cpuSeconds(running.pids) - cpuBefore;
        throughput.set(clients, { phase, cpuMsPerRun: (cpu * 1000) / Math.max(1, phase.completed) });
        log(`  ${graph}, ${clients} clients: ${phase.perSecond.toFixed(1)} runs/s, ${phase.errors} errors`);
      }
      const stream = await runStream(
        running.url,
        graph,
        { perClient: streams, maxMs: streams > 0 ? 60_000 : 0 },
        (line) => log(`  ${graph} stream ${line}`),
      );
      figures.get(graph)?.set(mode.key, {
        throughput,
        firstEventP50: stream.firstEvent.p50,
        firstValuesP50: stream.firstValues.p50,
        streamErrors: stream.phase.errors,
      });
    }
  } finally {
    await running.stop();
  }
}

const out: string[] = [];
const verdict = (ok: boolean) => (ok ? "PASS" : "MISS");
const ratio = (a: number | undefined, b: number | undefined) =>
  a !== undefined && b !== undefined && b > 0 ? a / b : Number.NaN;
out.push(
  "",
  `# Scaled out vs embedded (${quick ? "QUICK: figures mean little" : "full"}): ${seconds} s per phase, ${streams} streams per graph and mode${modelMs > 0 ? `, the model answering in ${modelMs} ms` : ""}`,
  `${os.cpus().length} cores, Node ${process.versions.node}; load average before ${loadBefore}, after ${loadAverage()}; whole run ${Math.round((Date.now() - started) / 1000)} s`,
);
for (const graph of graphs) {
  const byMode = figures.get(graph) ?? new Map<Mode["key"], ModeFigures>();
  out.push(
    "",
    `## ${graph === "echo" ? "echo" : "ReAct agent"} (${graph})`,
    "",
    `| mode | ${clientCounts.map((c) => `runs/s @${c} | CPU ms/run @${c} | p99 ms @${c}`).join(" | ")} | errors | first event p50 | first values p50 |`,
    `|---|${clientCounts.map(() => "---:|---:|---:").join("|")}|---:|---:|---:|`,
  );
  for (const mode of modes) {
    const f = byMode.get(mode.key);
    if (!f) continue;
    const cells = clientCounts.map((c) => {
      const t = f.throughput.get(c);
      return t
        ? `${t.phase.perSecond.toFixed(1)} | ${t.cpuMsPerRun.toFixed(1)} | ${t.phase.latency.p99.toFixed(0)}`
        : "– | – | –";
    });
    const errors = [...f.throughput.values()].reduce((n, t) => n + t.phase.errors, f.streamErrors);
    out.push(
      `| ${mode.name} | ${cells.join(" | ")} | ${errors} | ${f.firstEventP50.toFixed(1)} ms | ${f.firstValuesP50.toFixed(1)} ms |`,
    );
  }
  out.push("");
  for (const c of clientCounts) {
    const rps = (key: Mode["key"]) => byMode.get(key)?.throughput.get(c)?.phase.perSecond;
    const scaling = ratio(rps("pg2"), rps("pg1"));
    const pg1 = ratio(rps("pg1"), rps("sqlite"));
    const pg2 = ratio(rps("pg2"), rps("sqlite"));
    out.push(
      `- ${c} clients: 2 workers / 1 worker = ${scaling.toFixed(2)}× (target ≥ ${targetScaling}×) — ${verdict(scaling >= targetScaling)}`,
    );
    if (modelMs > 0) continue;
    out.push(
      `- ${c} clients: PG + Redis 1 worker / SQLite = ${(pg1 * 100).toFixed(0)} % (target ≥ ${TARGET_PG_VS_SQLITE * 100} %) — ${verdict(pg1 >= TARGET_PG_VS_SQLITE)}; with 2 workers ${(pg2 * 100).toFixed(0)} %`,
    );
  }
  const same = byMode.get("sqlite")?.firstEventP50 ?? Number.NaN;
  const cross = byMode.get("pg1")?.firstEventP50 ?? Number.NaN;
  if (streams > 0)
    out.push(
      `- first event p50, same process (SQLite): ${same.toFixed(1)} ms (target ≤ ${TARGET_FIRST_EVENT_MS} ms) — ${verdict(same <= TARGET_FIRST_EVENT_MS)}`,
      `- first event p50, cross-process (PG + Redis, API + worker): ${cross.toFixed(1)} ms (target ≤ ${TARGET_FIRST_EVENT_MS} ms) — ${verdict(cross <= TARGET_FIRST_EVENT_MS)}`,
    );
}
out.push(
  "",
  "runs/s: closed-loop create+join, answers checked, threads rotating every 10 runs (as run.ts); CPU: user + system of every",
  "process of the mode (API and workers) over the phase / completed runs; first event: from runs.stream() to its first event",
  "(metadata, sent by the API on acceptance; in PG mode it comes back through Redis); first values: the executing process's first",
  "event (in PG mode from a worker, through Redis). The bench client shares the cores. The official JS server: bench/agent-server/run.ts.",
);
process.stdout.write(`${out.join("\n")}\n`);
