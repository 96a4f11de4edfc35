// The agent server scaled out, side by side with the embedded mode: runs/s of `runs.wait` on one
// graph with N clients, and stream time to the first event (the `metadata` sent on acceptance).
// Modes: SQLite in one process; PostgreSQL + Redis with 1 API + 1 worker; with 1 API + 2 workers.
// Usage: node --import tsx bench/agent-server/scaled.ts [--seconds 10] [--clients 16] [--graph echo|agent]
// Needs DATABASE_URL and REDIS_URL; build first (npm run build).
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { type SpawnedServer, spawnBerth } from "@berth-platform/testkit";
import { Client } from "@langchain/langgraph-sdk";
import pg from "pg";
import { EXAMPLE_GRAPH_CONFIG, runInput } from "./workload.js";

interface Mode {
  name: string;
  workers: number;
  scaled: boolean;
}

const MODES: Mode[] = [
  { name: "SQLite, 1 process", workers: 0, scaled: false },
  { name: "PG + Redis, 1 API + 1 worker", workers: 1, scaled: true },
  { name: "PG + Redis, 1 API + 2 workers", workers: 2, scaled: true },
];

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    clients: { type: "string", default: "16" },
    graph: { type: "string", default: "echo" },
  },
});
const seconds = Number(values.seconds);
const clients = Number(values.clients);
const graph = values.graph ?? "echo";
const databaseUrl = process.env.DATABASE_URL;
const redisUrl = process.env.REDIS_URL;
if (!databaseUrl || !redisUrl) throw new Error("DATABASE_URL and REDIS_URL are needed");

/** Starts the processes of a mode; returns the API's URL and a stop function. */
async function startMode(mode: Mode): Promise<{ url: string; pids: number[]; stop(): Promise<void> }> {
  const processes: SpawnedServer[] = [];
  const base = ["serve", "--config", EXAMPLE_GRAPH_CONFIG, "--port", "0", "--host", "127.0.0.1"];
  const env: Record<string, string> = { BERTH_LOG_LEVEL: "info", N_JOBS_PER_WORKER: "10" };
  let cleanup = async () => {};
  if (!mode.scaled) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-bench-scaled-"));
    processes.push(await spawnBerth([...base, "--data-dir", dir], { env }));
    cleanup = async () => fs.rmSync(dir, { recursive: true, force: true });
  } else {
    const schema = `bench_${randomBytes(4).toString("hex")}`;
    Object.assign(env, {
      DATABASE_URI: databaseUrl,
      REDIS_URI: redisUrl,
      BERTH_DATABASE_SCHEMA: schema,
      REDIS_KEY_PREFIX: `${schema}:`,
    });
    processes.push(await spawnBerth([...base, "--role", "api"], { env }));
    for (let i = 0; i < mode.workers; i++)
      processes.push(await spawnBerth([...base, "--role", "worker"], { env }));
    cleanup = async () => {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
    };
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

/** CPU seconds the mode's processes used, from /proc (Linux). */
function cpuSeconds(pids: number[]): number {
  const tick = 100;
  return pids.reduce((sum, pid) => {
    try {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      return sum + (Number(fields[11]) + Number(fields[12])) / tick;
    } catch {
      return sum;
    }
  }, 0);
}

async function throughput(url: string): Promise<number> {
  const threads = await Promise.all(
    Array.from({ length: clients }, () => new Client({ apiUrl: url }).threads.create()),
  );
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    threads.map(async (thread) => {
      const client = new Client({ apiUrl: url });
      while (Date.now() < deadline) {
        await client.runs.wait(thread.thread_id, graph, { input: runInput() });
        done++;
      }
    }),
  );
  return done / seconds;
}

async function firstEventP50(url: string): Promise<number> {
  const client = new Client({ apiUrl: url });
  const thread = await client.threads.create();
  const times: number[] = [];
  for (let i = 0; i < 30; i++) {
    const started = performance.now();
    for await (const _ of client.runs.stream(thread.thread_id, graph, { input: runInput() })) {
      if (times.length === i) times.push(performance.now() - started);
    }
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

const rows: string[] = [];
for (const mode of MODES) {
  const running = await startMode(mode);
  try {
    const client = new Client({ apiUrl: running.url });
    const warm = await client.threads.create();
    for (let i = 0; i < 5; i++) await client.runs.wait(warm.thread_id, graph, { input: runInput() });
    const ids = running.pids;
    const cpuBefore = cpuSeconds(ids);
    const rps = await throughput(running.url);
    const cpu = cpuSeconds(ids) - cpuBefore;
    const p50 = await firstEventP50(running.url);
    rows.push(
      `| ${mode.name} | ${rps.toFixed(1)} | ${((cpu / (rps * seconds)) * 1000).toFixed(1)} | ${p50.toFixed(1)} |`,
    );
    process.stdout.write(`${rows.at(-1)}\n`);
  } finally {
    await running.stop();
  }
}
process.stdout.write(
  `\n${graph} graph, ${clients} clients, ${seconds} s per mode, ${os.cpus().length} cores\n` +
    "| mode | runs/s | server CPU ms/run | first event p50 (ms) |\n|---|---|---|---|\n" +
    `${rows.join("\n")}\n`,
);
