// The benchmark of record (issue 31): the official JS server and Berth side by side on a chat
// workload (every user keeps its thread, every run appends to it), echo and ReAct graphs of the
// same project. Per server and graph: single-client create+join, runs/s at 16 and 64 clients with
// CPU per run from the server's process counters, and the cost of one run at turns 1, 10, 50, 100.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { chatThroughput, turnSweep } from "./chat-phases.js";
import { CHAT_PLANS, type ChatPlan, type ChatServerResult, chatReport } from "./chat-report.js";
import { type ClientKind, describeClient, parseClientKind } from "./http-client.js";
import { ensurePeerInstalled, PEER_PROJECT_DIR, preparePeerProject } from "./peer-install.js";
import { runLatency, runThreadCreate, warmUp, warmUpUnderLoad } from "./scenarios.js";
import { type RunningServer, startBerth, startPeer } from "./servers.js";
import { nowMs } from "./stats.js";
import { GRAPH_IDS, type GraphId } from "./workload.js";

const USAGE = `Usage: npm run bench:chat -- [--quick] [--graph echo|agent] [--skip-peer] [--skip-w2] [--client http|sdk]

The official server (langgraphjs dev), Berth with its defaults (berth dev) and Berth --workers 2,
one after the other, on the chat workload: threads kept and growing. Full: 12–16 minutes on
2 cores; --quick about 2 minutes (figures mean little).`;

const started = nowMs();
const progress = (line: string) =>
  process.stdout.write(`[${((nowMs() - started) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
const loadAverage = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

async function measure(
  server: RunningServer,
  plan: ChatPlan,
  graphs: GraphId[],
  client: ClientKind,
  isPeer: boolean,
): Promise<ChatServerResult> {
  const result: ChatServerResult = { name: server.name, graphs: {}, logLines: [] };
  for (const graphId of graphs) {
    const tag = `${server.name} ${graphId}`;
    progress(`${tag}: warm-up, ${plan.warmup} runs, then ${plan.warmupLoadMs / 1000} s at 64 clients`);
    await warmUp(server.url, graphId, plan.warmup, client);
    await warmUpUnderLoad(server.url, graphId, 64, plan.warmupLoadMs, client);
    const sequential = await runLatency(
      server.url,
      graphId,
      isPeer ? plan.peerSequential : plan.sequential,
      () => {},
      client,
    );
    progress(
      `${tag}: create+join p50 ${sequential.latency.p50.toFixed(1)} ms (${sequential.completed} runs)`,
    );
    const figures: NonNullable<ChatServerResult["graphs"][GraphId]> = { sequential, chat: {}, load: {} };
    for (const clients of plan.clients) {
      const load = await chatThroughput(server, graphId, clients, plan.chat, client);
      figures.chat[clients] = load;
      figures.load[clients] = loadAverage();
      const errors = load.phase.errors ? `, ${load.phase.errors} ERRORS (${load.phase.firstError})` : "";
      progress(
        `${tag} ${clients} clients: ${load.phase.perSecond.toFixed(1)} runs/s, ` +
          `${load.cpuMsPerRun?.toFixed(2) ?? "?"} ms CPU/run, threads reached turn ${load.meanTurns.toFixed(0)}${errors}`,
      );
    }
    progress(`${tag}: turn sweep, ${plan.sweepThreads} threads to turn ${plan.lastTurn}`);
    figures.sweep = await turnSweep(server, graphId, plan.sweepThreads, plan.lastTurn, client, progress);
    figures.sweepLoad = loadAverage();
    result.graphs[graphId] = figures;
  }
  progress(`${server.name}: thread create, 64 connections`);
  result.threads = await runThreadCreate(server.url, 64, plan.threadCreate, () => {}, client);
  // A copy: lines the server writes while it stops (SIGTERM notices) are not findings.
  result.logLines = [...server.logLines()];
  return result;
}

async function withServer(
  name: string,
  start: () => Promise<RunningServer>,
  plan: ChatPlan,
  graphs: GraphId[],
  client: ClientKind,
  isPeer = false,
): Promise<ChatServerResult> {
  progress(`${name}: starting`);
  let server: RunningServer;
  try {
    server = await start();
  } catch (error) {
    return { name, graphs: {}, error: String(error).split("\n")[0], logLines: [] };
  }
  try {
    return { ...(await measure(server, plan, graphs, client, isPeer)), name };
  } catch (error) {
    return { name, graphs: {}, error: String(error).split("\n")[0], logLines: server.logLines() };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      graph: { type: "string" },
      "skip-peer": { type: "boolean", default: false },
      "skip-w2": { type: "boolean", default: false },
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
  const plan = CHAT_PLANS[values.quick ? "quick" : "full"];
  const client = parseClientKind(values.client);
  const dataRoot = fs.mkdtempSync(path.join(os.tmpdir(), "berth-bench-chat-"));
  process.once("SIGINT", () => process.exit(130));
  process.once("SIGTERM", () => process.exit(143));
  const loadBefore = loadAverage();
  progress(
    `chat bench (${plan.name}) on ${os.availableParallelism()} cores, Node ${process.version}; load average ${loadBefore}; client: ${describeClient(client)}`,
  );
  try {
    const results: ChatServerResult[] = [];
    if (values["skip-peer"])
      results.push({ name: "official", graphs: {}, error: "--skip-peer", logLines: [] });
    else {
      try {
        await ensurePeerInstalled(progress);
        const config = preparePeerProject();
        results.push(await withServer("official", () => startPeer(config), plan, graphs, client, true));
      } catch (error) {
        results.push({ name: "official", graphs: {}, error: String(error).split("\n")[0], logLines: [] });
      } finally {
        fs.rmSync(PEER_PROJECT_DIR, { recursive: true, force: true });
      }
    }
    const dataDir = path.join(dataRoot, "defaults");
    results.push(
      await withServer(
        "Berth defaults",
        () => startBerth(dataDir, { workers: "default" }),
        plan,
        graphs,
        client,
      ),
    );
    if (!values["skip-w2"]) {
      const w2Dir = path.join(dataRoot, "w2");
      results.push(
        await withServer("Berth w2", () => startBerth(w2Dir, { workers: 2 }), plan, graphs, client),
      );
    }
    process.stdout.write(`${chatReport(results, graphs, plan)}\n`);
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
