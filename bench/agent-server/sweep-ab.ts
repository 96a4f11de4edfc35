// A/B of Berth builds on the turn sweep (issue 31): each round starts a fresh `berth dev` of every
// build in turn (the order alternating), warms it up and runs chat-phases' turn sweep, so that a
// machine whose load drifts hits the builds alike. Prints each round's CPU per run at turn 1
// (controls beside turn 50), 50 and 100 and the growth ratio, then the medians. Build the other tree
// first (`npm run build` there). Usage:
//   node --import tsx bench/agent-server/sweep-ab.ts --cli base=/other/tree/packages/cli/bin/berth.js,new=packages/cli/bin/berth.js
//     [--graph agent|echo] [--rounds 3] [--threads 32] [--turns 102]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { cpuAround, turn1Beside, turnSweep } from "./chat-phases.js";
import { CONTROL_SPAN, SWEEP_WINDOW } from "./chat-report.js";
import { warmUp, warmUpUnderLoad } from "./scenarios.js";
import { startBerth } from "./servers.js";
import { percentile } from "./stats.js";
import type { GraphId } from "./workload.js";

const { values } = parseArgs({
  options: {
    cli: { type: "string" },
    graph: { type: "string", default: "agent" },
    rounds: { type: "string", default: "3" },
    threads: { type: "string", default: "32" },
    turns: { type: "string", default: "102" },
  },
});
if (!values.cli) throw new Error("--cli label=path/to/berth.js,label2=... is required");
const builds = values.cli.split(",").map((pair) => {
  const [label, cli] = pair.split("=");
  if (!label || !cli) throw new Error(`--cli: ${pair} is not label=path`);
  return { label, cli: path.resolve(cli) };
});
const graphId = values.graph as GraphId;
const lastTurn = Number(values.turns);
type Row = { t1: number; t50: number; t100: number | undefined; ratio: number };
const results = new Map<string, Row[]>(builds.map((b) => [b.label, []]));
const load = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

for (let round = 0; round < Number(values.rounds); round += 1) {
  const order = round % 2 === 0 ? builds : [...builds].reverse();
  for (const build of order) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-sweep-ab-"));
    const server = await startBerth(dataDir, { workers: "default", cli: build.cli, name: build.label });
    try {
      await warmUp(server.url, graphId, 20);
      await warmUpUnderLoad(server.url, graphId, 32, 4_000);
      const sweep = await turnSweep(server, graphId, Number(values.threads), lastTurn, "http", () => {});
      const t1 = turn1Beside(sweep, 50, CONTROL_SPAN) ?? Number.NaN;
      const t50 = cpuAround(sweep, 50, SWEEP_WINDOW) ?? Number.NaN;
      const t100 = lastTurn >= 102 ? cpuAround(sweep, 100, SWEEP_WINDOW) : undefined;
      results.get(build.label)?.push({ t1, t50, t100, ratio: t50 / t1 });
      process.stdout.write(
        `round ${round + 1} ${build.label}: CPU ms/run turn 1 ${t1.toFixed(2)}, 50 ${t50.toFixed(2)}, 100 ${t100?.toFixed(2) ?? "—"}; turn 50 / turn 1 ${(t50 / t1).toFixed(2)}×; load ${load()}${sweep.errors ? `; ${sweep.errors} errors: ${sweep.firstError}` : ""}\n`,
      );
    } finally {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
}
for (const [label, rows] of results) {
  const m = (pick: (r: Row) => number | undefined) => {
    const sorted = rows
      .map(pick)
      .filter((n): n is number => n !== undefined && Number.isFinite(n))
      .sort((a, b) => a - b);
    return sorted.length ? percentile(sorted, 50).toFixed(2) : "—";
  };
  process.stdout.write(
    `${label} (median of ${rows.length}): turn 1 ${m((r) => r.t1)}, 50 ${m((r) => r.t50)}, 100 ${m((r) => r.t100)}; turn 50 / turn 1 ${m((r) => r.ratio)}×\n`,
  );
}
