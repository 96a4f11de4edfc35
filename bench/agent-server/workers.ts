// Issue 12's side-by-side: the official server, Berth in one process (--workers 1) and Berth on
// two processes (--workers 2), in one run, on the same project and the same SDK client. Per graph:
// runs/s at 16 and 64 clients (create + join loops), server CPU per run (the whole process group),
// and /ok latency measured while the 64-client phase runs; then thread creation at 64 clients.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { type ClientKind, describeClient, parseClientKind } from "./http-client.js";
import type { LoopLimits, PhaseResult } from "./loops.js";
import { ensurePeerInstalled, PEER_PROJECT_DIR, preparePeerProject } from "./peer-install.js";
import { runThreadCreate, runThroughput, warmUp, warmUpUnderLoad } from "./scenarios.js";
import { type RunningServer, startBerth, startPeer } from "./servers.js";
import { type LatencySummary, nowMs, summarize } from "./stats.js";
import { GRAPH_IDS, type GraphId } from "./workload.js";

const USAGE = `Usage: node --import tsx bench/agent-server/workers.ts [--quick] [--graph echo|agent] [--skip-peer] [--client http|sdk]

The official server (langgraphjs dev), Berth --workers 1 and Berth --workers 2 side by side:
runs/s at 16 and 64 clients, server CPU per run, /ok p99 under the 64-client load, thread
create at 64 clients. Full: about 3 minutes on 2 cores; --quick about a minute (figures mean little).`;

const CLIENTS = [16, 64] as const;
const THREAD_CLIENTS = 64;
const RUNS_PER_THREAD = 10;

interface Plan {
  name: "full" | "quick";
  warmup: number;
  /** Then 64 closed-loop clients for this long, unmeasured (warmUpUnderLoad). */
  warmupLoadMs: number;
  throughput: LoopLimits;
  threadCreate: LoopLimits;
}

const PLANS: Record<"full" | "quick", Plan> = {
  full: {
    name: "full",
    warmup: 30,
    warmupLoadMs: 12_000,
    throughput: { perClient: Number.MAX_SAFE_INTEGER, maxMs: 8_000 },
    threadCreate: { perClient: Number.MAX_SAFE_INTEGER, maxMs: 3_000 },
  },
  quick: {
    name: "quick",
    warmup: 3,
    warmupLoadMs: 500,
    throughput: { perClient: Number.MAX_SAFE_INTEGER, maxMs: 1_500 },
    threadCreate: { perClient: Number.MAX_SAFE_INTEGER, maxMs: 700 },
  },
};

interface Load {
  phase: PhaseResult;
  cpuMsPerRun: number | undefined;
  /** GET /ok while this phase ran (64 clients only). */
  ok?: LatencySummary;
}

interface ServerResult {
  name: string;
  graphs: Partial<Record<GraphId, Partial<Record<(typeof CLIENTS)[number], Load>>>>;
  threads?: PhaseResult;
  error?: string;
  logLines: readonly string[];
}

const started = nowMs();
const progress = (line: string) =>
  process.stdout.write(`[${((nowMs() - started) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);

const loadAverage = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

/**
 * GET /ok one after another (10 ms apart) on one keep-alive connection until `stop` resolves: what
 * a load balancer's health check sees while the server is busy.
 */
async function probeOk(url: string, stop: Promise<void>): Promise<LatencySummary> {
  const samples: number[] = [];
  let done = false;
  void stop.then(() => {
    done = true;
  });
  while (!done) {
    const t0 = nowMs();
    try {
      const response = await fetch(`${url}/ok`, { signal: AbortSignal.timeout(10_000) });
      await response.arrayBuffer();
      if (response.ok) samples.push(nowMs() - t0);
    } catch {
      samples.push(10_000);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return summarize(samples);
}

async function measure(
  server: RunningServer,
  plan: Plan,
  graphs: GraphId[],
  client: ClientKind,
): Promise<ServerResult> {
  const result: ServerResult = { name: server.name, graphs: {}, logLines: [] };
  for (const graphId of graphs) {
    progress(`${server.name} ${graphId}: warm-up, ${plan.warmup} runs`);
    await warmUp(server.url, graphId, plan.warmup, client);
    progress(`${server.name} ${graphId}: warm-up under load, ${plan.warmupLoadMs / 1000} s`);
    await warmUpUnderLoad(server.url, graphId, 64, plan.warmupLoadMs, client);
    const byClients: Partial<Record<(typeof CLIENTS)[number], Load>> = {};
    for (const clients of CLIENTS) {
      const cpu0 = server.cpuMs();
      let stopProbe: () => void = () => {};
      const probe =
        clients === 64
          ? probeOk(server.url, new Promise<void>((resolve) => (stopProbe = resolve)))
          : undefined;
      const phase = await runThroughput(
        server.url,
        graphId,
        clients,
        RUNS_PER_THREAD,
        plan.throughput,
        () => {},
        client,
      );
      stopProbe();
      const cpu1 = server.cpuMs();
      const ok = probe ? await probe : undefined;
      byClients[clients] = {
        phase,
        cpuMsPerRun:
          cpu0 === undefined || cpu1 === undefined ? undefined : (cpu1 - cpu0) / Math.max(1, phase.completed),
        ...(ok ? { ok } : {}),
      };
      const errors = phase.errors ? `, ${phase.errors} ERRORS (${phase.firstError})` : "";
      progress(
        `${server.name} ${graphId} ${clients} clients: ${phase.perSecond.toFixed(1)} runs/s, ` +
          `p99 ${phase.latency.p99.toFixed(0)} ms${ok ? `, /ok p99 ${ok.p99.toFixed(1)} ms` : ""}${errors}`,
      );
    }
    result.graphs[graphId] = byClients;
  }
  progress(`${server.name}: thread create, ${THREAD_CLIENTS} clients`);
  result.threads = await runThreadCreate(server.url, THREAD_CLIENTS, plan.threadCreate, () => {}, client);
  progress(`${server.name}: thread create ${result.threads.perSecond.toFixed(0)}/s`);
  result.logLines = server.logLines();
  return result;
}

async function withServer(
  name: string,
  start: () => Promise<RunningServer>,
  plan: Plan,
  graphs: GraphId[],
  client: ClientKind,
) {
  progress(`${name}: starting`);
  let server: RunningServer;
  try {
    server = await start();
  } catch (error) {
    return { name, graphs: {}, error: String(error).split("\n")[0], logLines: [] } satisfies ServerResult;
  }
  try {
    return await measure(server, plan, graphs, client);
  } catch (error) {
    return { name, graphs: {}, error: String(error).split("\n")[0], logLines: server.logLines() };
  } finally {
    await server.stop();
  }
}

const fmt = (n: number | undefined, digits = 1) =>
  n === undefined || Number.isNaN(n) ? "—" : n.toFixed(digits);
const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || !b ? "—" : `${(a / b).toFixed(2)}×`;

function report(results: ServerResult[], graphs: GraphId[]): string {
  const [peer, one, two] = results as [ServerResult, ServerResult, ServerResult];
  const lines: string[] = [];
  const header = `| | ${peer.name} | ${one.name} | ${two.name} | w2 / official | w2 / w1 |`;
  const rule = "|---|---:|---:|---:|---:|---:|";
  for (const graphId of graphs) {
    lines.push("", `**${graphId}**`, "", header, rule);
    for (const clients of CLIENTS) {
      const get = (r: ServerResult) => r.graphs[graphId]?.[clients];
      const rps = (r: ServerResult) => get(r)?.phase.perSecond;
      lines.push(
        `| runs/s, ${clients} clients | ${fmt(rps(peer))} | ${fmt(rps(one))} | ${fmt(rps(two))} | ${ratio(rps(two), rps(peer))} | ${ratio(rps(two), rps(one))} |`,
      );
    }
    for (const clients of CLIENTS) {
      const lat = (r: ServerResult) => r.graphs[graphId]?.[clients]?.phase.latency;
      const cell = (r: ServerResult) => (lat(r) ? `${fmt(lat(r)?.p50, 0)} / ${fmt(lat(r)?.p99, 0)}` : "—");
      lines.push(
        `| run p50 / p99 ms, ${clients} clients | ${cell(peer)} | ${cell(one)} | ${cell(two)} | | |`,
      );
    }
    for (const clients of CLIENTS) {
      const cpu = (r: ServerResult) => r.graphs[graphId]?.[clients]?.cpuMsPerRun;
      lines.push(
        `| server CPU ms per run, ${clients} clients | ${fmt(cpu(peer), 2)} | ${fmt(cpu(one), 2)} | ${fmt(cpu(two), 2)} | | |`,
      );
    }
    const ok = (r: ServerResult) => r.graphs[graphId]?.[64]?.ok;
    const okCell = (r: ServerResult) => (ok(r) ? `${fmt(ok(r)?.p50, 1)} / ${fmt(ok(r)?.p99, 1)}` : "—");
    lines.push(
      `| /ok p50 / p99 ms during 64 clients | ${okCell(peer)} | ${okCell(one)} | ${okCell(two)} | | |`,
    );
    const errors = (r: ServerResult) =>
      CLIENTS.reduce((sum, c) => sum + (r.graphs[graphId]?.[c]?.phase.errors ?? 0), 0);
    lines.push(`| failed runs | ${errors(peer)} | ${errors(one)} | ${errors(two)} | | |`);
  }
  const t = (r: ServerResult) => r.threads?.perSecond;
  lines.push("", header, rule);
  lines.push(
    `| thread create req/s, ${THREAD_CLIENTS} clients | ${fmt(t(peer), 0)} | ${fmt(t(one), 0)} | ${fmt(t(two), 0)} | ${ratio(t(two), t(peer))} | ${ratio(t(two), t(one))} |`,
  );
  for (const r of results) {
    if (r.error) lines.push(`${r.name}: unavailable (${r.error})`);
    if (r.logLines.length) lines.push(`${r.name} logged ${r.logLines.length} lines; first: ${r.logLines[0]}`);
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      graph: { type: "string" },
      "skip-peer": { type: "boolean", default: false },
      client: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const graphs = values.graph ? [values.graph as GraphId] : [...GRAPH_IDS];
  if (!graphs.every((g) => GRAPH_IDS.includes(g))) throw new Error(`--graph takes ${GRAPH_IDS.join(" or ")}`);
  const plan = PLANS[values.quick ? "quick" : "full"];
  const client = parseClientKind(values.client);
  const dataRoot = fs.mkdtempSync(path.join(os.tmpdir(), "berth-bench-workers-"));
  process.once("SIGINT", () => process.exit(130));
  process.once("SIGTERM", () => process.exit(143));
  const loadBefore = loadAverage();
  progress(
    `workers bench (${plan.name}) on ${os.availableParallelism()} cores; load average ${loadBefore}; client: ${describeClient(client)}`,
  );
  try {
    let peer: ServerResult;
    if (values["skip-peer"]) peer = { name: "official", graphs: {}, error: "--skip-peer", logLines: [] };
    else {
      try {
        await ensurePeerInstalled(progress);
        const config = preparePeerProject();
        peer = await withServer("official", () => startPeer(config), plan, graphs, client);
      } catch (error) {
        peer = { name: "official", graphs: {}, error: String(error).split("\n")[0], logLines: [] };
      } finally {
        fs.rmSync(PEER_PROJECT_DIR, { recursive: true, force: true });
      }
      peer.name = "official";
    }
    const one = await withServer(
      "Berth w1",
      () => startBerth(path.join(dataRoot, "w1"), { workers: 1 }),
      plan,
      graphs,
      client,
    );
    one.name = "Berth w1";
    const two = await withServer(
      "Berth w2",
      () => startBerth(path.join(dataRoot, "w2"), { workers: 2 }),
      plan,
      graphs,
      client,
    );
    two.name = "Berth w2";
    process.stdout.write(`${report([peer, one, two], graphs)}\n`);
    process.stdout.write(
      `\nload average: ${loadBefore} before, ${loadAverage()} after; ${((nowMs() - started) / 1000).toFixed(0)} s in all\n`,
    );
  } finally {
    fs.rmSync(dataRoot, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
