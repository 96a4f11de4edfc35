import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { measureFloorInChild } from "./floor.js";
import { type ClientKind, describeClient, parseClientKind } from "./http-client.js";
import type { PhaseResult } from "./loops.js";
import { ensurePeerInstalled, PEER_PROJECT_DIR, peerVersions, preparePeerProject } from "./peer-install.js";
import { type BenchPlan, benchPlan, CLIENT_COUNTS, type ClientCount, THREAD_CREATE_CLIENTS } from "./plan.js";
import { renderReport, TARGETS } from "./report.js";
import type {
  BenchResults,
  Outcome,
  ServerFigures,
  ServerGraphFigures,
  SoakFigures,
  StreamFigures,
  ThroughputFigures,
} from "./results.js";
import {
  runLatency,
  runStream,
  runThreadCreate,
  runThroughput,
  warmUp,
  warmUpUnderLoad,
} from "./scenarios.js";
import { type RunningServer, startBerth, startPeer } from "./servers.js";
import { directoryBytes, runSoak } from "./soak.js";
import { nowMs } from "./stats.js";
import { GRAPH_IDS, type GraphId, REPO_ROOT } from "./workload.js";

const USAGE = `Usage: node --import tsx bench/agent-server/run.ts [--quick] [--only berth|peer|soak] [--graph echo|agent] [--client http|sdk]

Compares Berth's agent server with the official one (langgraphjs dev, @langchain/langgraph-api 2.0.0)
and with graph.invoke in process, then soaks Berth (10,000 echo runs; 500 with --quick) watching its
memory. --only berth leaves out the peer, --only peer leaves out Berth, the floor and the soak,
--only soak runs the soak alone. Build Berth first (npm run build); the peer installs itself into
bench/agent-server/peer on first use.`;

const ONLY = ["berth", "peer", "soak"] as const;
type Only = (typeof ONLY)[number];

interface Options {
  quick: boolean;
  client: ClientKind;
  only: Only | undefined;
  graphs: GraphId[];
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: "boolean", default: false },
      only: { type: "string" },
      graph: { type: "string" },
      client: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const only = values.only;
  if (only !== undefined && !ONLY.includes(only as Only)) {
    throw new Error(`--only takes ${ONLY.join(", ")}, not "${only}"`);
  }
  const graph = values.graph;
  if (graph !== undefined && !GRAPH_IDS.includes(graph as GraphId)) {
    throw new Error(`--graph takes ${GRAPH_IDS.join(" or ")}, not "${graph}"`);
  }
  return {
    quick: values.quick,
    client: parseClientKind(values.client),
    only: only as Only | undefined,
    graphs: graph === undefined ? [...GRAPH_IDS] : [graph as GraphId],
  };
}

const benchStart = nowMs();

function progress(line: string): void {
  const elapsed = ((nowMs() - benchStart) / 1000).toFixed(1).padStart(6);
  process.stdout.write(`[${elapsed} s] ${line}\n`);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function packageVersion(file: string): string {
  try {
    return (
      (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, file), "utf8")) as { version?: string }).version ?? "?"
    );
  } catch {
    return "?";
  }
}

function phaseLine(result: PhaseResult): string {
  const errors = result.errors > 0 ? `, ${result.errors} ERRORS` : "";
  return `${result.completed} in ${result.seconds.toFixed(1)} s (${result.perSecond.toFixed(1)}/s), p50 ${result.latency.p50.toFixed(2)} ms, p99 ${result.latency.p99.toFixed(2)} ms${errors}`;
}

function streamLine(stream: StreamFigures): string {
  const { phase } = stream;
  const errors = phase.errors > 0 ? `, ${phase.errors} ERRORS` : "";
  return (
    `${phase.completed} in ${phase.seconds.toFixed(1)} s, p50 first event ${stream.firstEvent.p50.toFixed(2)} ms, ` +
    `first values ${stream.firstValues.p50.toFixed(2)} ms, end ${phase.latency.p50.toFixed(2)} ms${errors}`
  );
}

/** Every HTTP phase of one server, graph by graph; a graph that fails is reported, the rest still runs. */
async function measureServer(server: RunningServer, plan: BenchPlan, options: Options, startSeconds: number) {
  const serverPlan = server.name === "Berth" ? plan.berth : plan.peer;
  const graphs: ServerFigures["graphs"] = {};
  for (const graphId of options.graphs) {
    const tag = `${server.name} ${graphId}`;
    try {
      progress(`${tag}: warm-up, ${serverPlan.warmup} runs`);
      await warmUp(server.url, graphId, serverPlan.warmup, options.client);
      progress(`${tag}: warm-up under load, ${serverPlan.warmupLoadMs / 1000} s`);
      await warmUpUnderLoad(server.url, graphId, 64, serverPlan.warmupLoadMs, options.client);

      progress(`${tag}: sequential create+join on fresh threads (≤ ${serverPlan.latency.perClient} runs)`);
      const latency = await runLatency(server.url, graphId, serverPlan.latency, progress, options.client);
      progress(`${tag}: sequential → ${phaseLine(latency)}`);

      progress(`${tag}: sequential runs.stream on fresh threads (≤ ${serverPlan.stream.perClient} runs)`);
      const stream = await runStream(server.url, graphId, serverPlan.stream, progress);
      progress(`${tag}: stream → ${streamLine(stream)}`);

      const throughput = {} as Record<ClientCount, ThroughputFigures>;
      for (const clients of CLIENT_COUNTS) {
        progress(`${tag}: ${clients} clients, create+join loops for ${serverPlan.throughput.maxMs / 1000} s`);
        const serverCpu0 = server.cpuMs();
        const clientCpu0 = process.cpuUsage();
        const phase = await runThroughput(
          server.url,
          graphId,
          clients,
          plan.runsPerThread,
          serverPlan.throughput,
          progress,
          options.client,
        );
        const serverCpu1 = server.cpuMs();
        const clientCpu = process.cpuUsage(clientCpu0);
        const runs = Math.max(1, phase.completed);
        throughput[clients] = {
          phase,
          serverCpuMsPerRun:
            serverCpu0 === undefined || serverCpu1 === undefined
              ? undefined
              : (serverCpu1 - serverCpu0) / runs,
          clientCpuMsPerRun: (clientCpu.user + clientCpu.system) / 1000 / runs,
        };
        progress(`${tag}: ${clients} clients → ${phaseLine(phase)}`);
      }
      const figures: ServerGraphFigures = { latency, stream, throughput };
      graphs[graphId] = { status: "ok", value: figures };
    } catch (error) {
      progress(`${tag}: FAILED: ${describe(error)}`);
      graphs[graphId] = { status: "unavailable", reason: describe(error) };
    }
  }

  let threadCreate: Outcome<PhaseResult>;
  try {
    progress(
      `${server.name}: thread create, ${THREAD_CREATE_CLIENTS} clients for ${serverPlan.threadCreate.maxMs / 1000} s`,
    );
    const result = await runThreadCreate(
      server.url,
      THREAD_CREATE_CLIENTS,
      serverPlan.threadCreate,
      progress,
      options.client,
    );
    progress(`${server.name}: thread create → ${phaseLine(result)}`);
    threadCreate = { status: "ok", value: result };
  } catch (error) {
    threadCreate = { status: "unavailable", reason: describe(error) };
  }
  const figures: ServerFigures = { graphs, threadCreate, logLines: [...server.logLines()], startSeconds };
  return figures;
}

async function withServer(
  name: string,
  start: () => Promise<RunningServer>,
  plan: BenchPlan,
  options: Options,
): Promise<Outcome<ServerFigures>> {
  progress(`${name}: starting`);
  const t0 = nowMs();
  let server: RunningServer;
  try {
    server = await start();
  } catch (error) {
    progress(`${name}: could not start: ${describe(error)}`);
    return { status: "unavailable", reason: describe(error).split("\n")[0] ?? "start failed" };
  }
  const startSeconds = (nowMs() - t0) / 1000;
  progress(`${name}: up at ${server.url} after ${startSeconds.toFixed(1)} s`);
  try {
    return { status: "ok", value: await measureServer(server, plan, options, startSeconds) };
  } finally {
    progress(`${name}: stopping`);
    await server.stop();
  }
}

async function runPeer(plan: BenchPlan, options: Options): Promise<Outcome<ServerFigures>> {
  try {
    await ensurePeerInstalled(progress);
  } catch (error) {
    progress(`peer: install failed: ${describe(error)}`);
    return { status: "unavailable", reason: `install failed: ${describe(error).split("\n")[0] ?? ""}` };
  }
  const config = preparePeerProject();
  try {
    return await withServer("peer", () => startPeer(config), plan, options);
  } finally {
    // The project holds copies and the peer's persisted store: nothing worth keeping between runs.
    fs.rmSync(PEER_PROJECT_DIR, { recursive: true, force: true });
  }
}

/**
 * A fresh Berth (its own data directory) for the soak alone, so the baseline is not the heap the
 * other phases left behind and `--only soak` measures exactly what the full run does.
 */
async function runSoakPhase(
  plan: BenchPlan,
  dataDir: string,
  client: ClientKind,
): Promise<Outcome<SoakFigures>> {
  const { soak } = plan;
  progress("Berth (soak): starting");
  const t0 = nowMs();
  let server: RunningServer;
  try {
    server = await startBerth(dataDir);
  } catch (error) {
    progress(`Berth (soak): could not start: ${describe(error)}`);
    return { status: "unavailable", reason: describe(error).split("\n")[0] ?? "start failed" };
  }
  const startSeconds = (nowMs() - t0) / 1000;
  progress(`Berth (soak): up at ${server.url} after ${startSeconds.toFixed(1)} s`);
  try {
    progress(
      `soak: ${soak.runs} ${soak.graph} runs, ${soak.clients} clients, RSS every ${soak.sampleEvery} runs ` +
        `(baseline after ${soak.warmupRuns})`,
    );
    const cpu0 = server.cpuMs();
    const run = await runSoak(server, soak, plan.runsPerThread, progress, client);
    const cpu1 = server.cpuMs();
    const finished = run.phase.completed + run.phase.errors;
    progress(`soak → ${phaseLine(run.phase)}`);
    return {
      status: "ok",
      value: {
        ...run,
        warmup: run.samples.find((sample) => sample.runs === soak.warmupRuns),
        end: finished >= soak.runs ? run.samples.at(-1) : undefined,
        serverCpuMsPerRun:
          cpu0 === undefined || cpu1 === undefined ? undefined : (cpu1 - cpu0) / Math.max(1, finished),
        dataBytes: directoryBytes(dataDir),
        logLines: [...server.logLines()],
        startSeconds,
      },
    };
  } catch (error) {
    progress(`soak: FAILED: ${describe(error)}`);
    return { status: "unavailable", reason: describe(error) };
  } finally {
    progress("Berth (soak): stopping");
    await server.stop();
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const plan = benchPlan(options.quick);
  const dataRoot = fs.mkdtempSync(path.join(os.tmpdir(), "berth-bench-"));
  process.once("SIGINT", () => process.exit(130));
  process.once("SIGTERM", () => process.exit(143));

  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  process.stdout.write(
    [
      `Agent server bench (${plan.name}): Berth ${packageVersion("packages/agent-server/package.json")} ` +
        `(@langchain/langgraph ${packageVersion("node_modules/@langchain/langgraph/package.json")}) ` +
        `vs langgraphjs dev (@langchain/langgraph-api 2.0.0)`,
      `machine: ${os.cpus().length} × ${cpu}, Node ${process.version}, ${os.platform()} ${os.release()}`,
      `client: ${describeClient(options.client)} (--client sdk: the official SDK); streams: the SDK;`,
      "        the bench process shares the CPU with the server under test (servers run one at a time).",
      `workload: graphs ${options.graphs.join(", ")}; throughput clients take a fresh thread every ${plan.runsPerThread} runs;`,
      `targets: create+join p50 ≥ ${TARGETS.latencyTimesFaster}× faster than the peer, runs/s ≥ ${TARGETS.throughputTimesPeer}× the peer, ` +
        `≥ ${TARGETS.floorPercent}% of the in-process floor; soak RSS growth < ${TARGETS.soakGrowthPercent}%, 0 errors`,
      "",
    ].join("\n"),
  );

  const skipped = (reason: string) => ({ status: "skipped", reason }) as const;
  try {
    const only = options.only;
    const berth =
      only === "peer" || only === "soak"
        ? skipped(`--only ${only}`)
        : await withServer("Berth", () => startBerth(path.join(dataRoot, "berth")), plan, options);
    const peer =
      only === "berth" || only === "soak" ? skipped(`--only ${only}`) : await runPeer(plan, options);

    const floor: BenchResults["floor"] = {};
    for (const graphId of options.graphs) {
      if (only === "peer" || only === "soak") {
        floor[graphId] = skipped(`--only ${only}`);
        continue;
      }
      try {
        progress(`floor ${graphId}: warm-up, ${plan.floor.warmup} invokes`);
        const result = await measureFloorInChild(
          graphId,
          path.join(dataRoot, "floor"),
          { ...plan.floor, runsPerThread: plan.runsPerThread },
          progress,
          (phase, result) => progress(`floor ${graphId}: ${phase} → ${phaseLine(result)}`),
        );
        floor[graphId] = { status: "ok", value: result };
      } catch (error) {
        progress(`floor ${graphId}: FAILED: ${describe(error)}`);
        floor[graphId] = { status: "unavailable", reason: describe(error) };
      }
    }

    const soak =
      only === "peer"
        ? skipped("--only peer")
        : await runSoakPhase(plan, path.join(dataRoot, "soak"), options.client);

    const results: BenchResults = {
      plan,
      graphs: options.graphs,
      berth,
      peer,
      floor,
      soak,
      peerVersions: peer.status === "ok" ? peerVersions() : undefined,
      wallSeconds: (nowMs() - benchStart) / 1000,
    };
    if (results.peerVersions) {
      const versions = Object.entries(results.peerVersions)
        .map(([name, version]) => `${name} ${version}`)
        .join(", ");
      progress(`peer versions: ${versions}`);
    }
    process.stdout.write(`${renderReport(results)}\n`);
    // Only a Berth that could not be measured at all is a failed bench; MISS lines are results.
    if (berth.status === "unavailable" || (only === "soak" && soak.status === "unavailable")) {
      process.exitCode = 1;
    }
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
