// Where one client's create+join goes (the chat bench's single-client p50): one `berth dev` process
// under `node --cpu-prof`, warmed up, then sequential create+join runs on fresh threads. Usage:
//   node --import tsx bench/agent-server/profile-latency.ts [--graph echo|agent] [--runs 600] [--keep DIR]
// Summarise the kept profile's steady part with profile-chat.ts's analysis or any .cpuprofile viewer.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { runLatency, warmUp } from "./scenarios.js";
import { startBerth } from "./servers.js";
import type { GraphId } from "./workload.js";

const { values } = parseArgs({
  options: {
    graph: { type: "string", default: "agent" },
    runs: { type: "string", default: "600" },
    keep: { type: "string" },
    "no-prof": { type: "boolean", default: false },
  },
});
const graphId = values.graph as GraphId;
const profiling = !values["no-prof"];
const dir = values.keep ?? fs.mkdtempSync(path.join(os.tmpdir(), "berth-prof-"));
if (profiling) fs.mkdirSync(dir, { recursive: true });
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-prof-data-"));
const server = await startBerth(dataDir, {
  workers: 1,
  nodeArgs: profiling ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : [],
});
try {
  await warmUp(server.url, graphId, 200);
  const cpu0 = server.cpuMs() ?? 0;
  const result = await runLatency(
    server.url,
    graphId,
    { perClient: Number(values.runs), maxMs: 120_000 },
    () => {},
  );
  const cpu = (server.cpuMs() ?? 0) - cpu0;
  console.log(
    `${graphId}: ${result.completed} runs, p50 ${result.latency.p50.toFixed(2)} ms, p99 ${result.latency.p99.toFixed(2)} ms, server CPU ${(cpu / result.completed).toFixed(2)} ms/run`,
  );
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
if (profiling) console.log(`profiles in ${dir}`);
else if (!values.keep) fs.rmSync(dir, { recursive: true, force: true });
