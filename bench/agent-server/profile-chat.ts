// Where Berth's CPU goes on the chat workload: one process under `node --cpu-prof`, a turn sweep
// (threads growing in lockstep), then the profile summarised: self time by function and by package,
// and inclusive time of Berth's own functions. Usage:
//   node --import tsx bench/agent-server/profile-chat.ts [--graph echo|agent] [--threads 16] [--turns 60] [--keep DIR]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { cpuAround, type TurnSweep, turnSweep } from "./chat-phases.js";
import { warmUp, warmUpUnderLoad } from "./scenarios.js";
import { startBerth } from "./servers.js";
import type { GraphId } from "./workload.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values } = parseArgs({
  options: {
    graph: { type: "string", default: "echo" },
    threads: { type: "string", default: "16" },
    turns: { type: "string", default: "60" },
    keep: { type: "string" },
    top: { type: "string", default: "40" },
    /** Only the sweep's CPU per run at turns 1, 10, 50, 100, without the profiler (an A/B check). */
    "no-prof": { type: "boolean", default: false },
    /** Summarise the profile and sweep a previous run kept in DIR (`--keep DIR`), without a run. */
    analyse: { type: "string" },
  },
});
const graphId = values.graph as GraphId;
const dir = values.analyse ?? values.keep ?? fs.mkdtempSync(path.join(os.tmpdir(), "berth-prof-"));
fs.mkdirSync(dir, { recursive: true });
const sweep = values.analyse
  ? (JSON.parse(fs.readFileSync(path.join(dir, "sweep.json"), "utf8")) as TurnSweep)
  : await profiledSweep();

async function profiledSweep(): Promise<TurnSweep | undefined> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-prof-data-"));
  const server = await startBerth(dataDir, {
    workers: 1,
    nodeArgs: values["no-prof"] ? [] : ["--cpu-prof", `--cpu-prof-dir=${dir}`],
  });
  try {
    await warmUp(server.url, graphId, 20);
    await warmUpUnderLoad(server.url, graphId, 32, 4_000);
    // Every thread's CPU at each wave's start and end (turnSweep reads cpuMs exactly there).
    const snapshots: Array<Map<string, number>> = [];
    const counted = {
      ...server,
      cpuMs: () => {
        snapshots.push(server.threadCpuMs());
        return server.cpuMs();
      },
    };
    const done = await turnSweep(
      counted,
      graphId,
      Number(values.threads),
      Number(values.turns),
      "http",
      (l) => process.stdout.write(`${l}\n`),
    );
    printThreadGrowth(done, snapshots);
    fs.writeFileSync(path.join(dir, "sweep.json"), JSON.stringify(done));
    const at = (t: number) => cpuAround(done, t, 1)?.toFixed(2);
    const load = fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
    process.stdout.write(
      `CPU ms/run (±1 turn): turn 1 ${at(1)}, 10 ${at(10)}, 50 ${at(50)}, 100 ${at(100)}; load average ${load}\n`,
    );
    return done;
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
if (values["no-prof"]) process.exit(0);

/** Each thread's CPU per run in turns 2–11 and the last ten turns (which thread's share grows). */
function printThreadGrowth(done: TurnSweep, snapshots: Array<Map<string, number>>): void {
  const perRun = (pick: (turn: TurnSweep["turns"][number]) => boolean) => {
    const ms = new Map<string, number>();
    let runs = 0;
    done.turns.forEach((w, i) => {
      if (!pick(w)) return;
      const [a, b] = [snapshots[2 * i], snapshots[2 * i + 1]];
      if (!a || !b) return;
      runs += w.latency.count;
      for (const [k, v] of b) ms.set(k, (ms.get(k) ?? 0) + v - (a.get(k) ?? v));
    });
    for (const [k, v] of ms) ms.set(k, v / Math.max(1, runs));
    return ms;
  };
  const main = done.turns.filter((w) => w.controlAfter === undefined);
  const lastTen = new Set(main.slice(-10));
  const early = perRun((w) => w.controlAfter === undefined && w.turn >= 2 && w.turn <= 11);
  const late = perRun((w) => lastTen.has(w));
  process.stdout.write("\nCPU ms per run by thread, turns 2–11 → last ten turns\n");
  for (const [k, v] of [...late].sort((x, y) => y[1] - x[1]))
    if (v > 0.005)
      process.stdout.write(
        `${(early.get(k) ?? 0).toFixed(3).padStart(7)} → ${v.toFixed(3).padStart(7)}  ${k}\n`,
      );
}

// The main thread's profile of the newest run in the directory (worker threads write their own).
const file = fs
  .readdirSync(dir)
  .filter((f) => /\.0\.\d+\.cpuprofile$/.test(f))
  .sort()
  .at(-1);
if (!file) throw new Error(`no .cpuprofile in ${dir}`);
const profile = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as Profile;
const total = profile.samples.length;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const where = (n: ProfileNode) => {
  const url = n.callFrame.url.replace(/^file:\/\//, "");
  const nm = url.lastIndexOf("node_modules/");
  const short = nm >= 0 ? url.slice(nm + 13) : url.replace(/.*\/packages\//, "packages/");
  return `${n.callFrame.functionName || "(anon)"} ${short}:${n.callFrame.lineNumber + 1}`;
};
const pkgOf = (n: ProfileNode) => {
  const url = n.callFrame.url;
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const rest = url.slice(nm + 13).split("/");
    return rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : (rest[0] ?? "?");
  }
  if (url.includes("/packages/")) return url.replace(/.*\/packages\/([^/]+)\/.*/, "berth:$1");
  if (url.startsWith("node:")) return "node internals";
  return url === "" ? n.callFrame.functionName || "(native)" : "other";
};

const self = new Map<string, number>();
const pkgSelf = new Map<string, number>();
const inclusive = new Map<string, number>();
const hits = new Map<number, number>();
for (const s of profile.samples) hits.set(s, (hits.get(s) ?? 0) + 1);
for (const [id, count] of hits) {
  const node = byId.get(id);
  if (!node) continue;
  self.set(where(node), (self.get(where(node)) ?? 0) + count);
  pkgSelf.set(pkgOf(node), (pkgSelf.get(pkgOf(node)) ?? 0) + count);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const n = byId.get(cur);
    if (!n) break;
    const key = where(n);
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + count);
  }
}
const top = Number(values.top);
const pct = (n: number) => `${((100 * n) / total).toFixed(1).padStart(5)} %`;
const print = (title: string, map: Map<string, number>, filter: (k: string) => boolean = () => true) => {
  process.stdout.write(`\n${title}\n`);
  for (const [k, v] of [...map]
    .filter(([k]) => filter(k))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top))
    process.stdout.write(`${pct(v)}  ${k}\n`);
};
process.stdout.write(`\nprofile ${path.join(dir, file)}: ${total} samples\n`);
print("self time by package", pkgSelf);
print("self time by function", self);
print("inclusive time, everything", inclusive, (k) => !k.startsWith("("));

// What grows with the thread: inclusive CPU per run of each function in the first waves (turns
// 2–11) and the last ten, from the samples taken while those waves ran (same monotonic clock).
if (sweep && sweep.turns.length >= 20) {
  const waves = sweep.turns;
  const early = waves.filter((w) => w.turn >= 2 && w.turn <= 11);
  const late = waves.filter((w) => w.controlAfter === undefined).slice(-10);
  const perRun = (window: typeof waves) => {
    const runs = window.reduce((n, w) => n + w.latency.count, 0);
    const ms = new Map<string, number>();
    const selfMs = new Map<string, number>();
    let at = profile.startTime;
    for (let i = 0; i < profile.samples.length; i += 1) {
      const delta = profile.timeDeltas[i] ?? 0;
      at += delta;
      if (!window.some((w) => at >= w.startedUs && at <= w.endedUs)) continue;
      const leaf = byId.get(profile.samples[i] ?? -1);
      if (leaf)
        selfMs.set(
          `self ${where(leaf)}`,
          (selfMs.get(`self ${where(leaf)}`) ?? 0) + delta / 1000 / Math.max(1, runs),
        );
      const seen = new Set<string>();
      for (let cur: number | undefined = profile.samples[i]; cur !== undefined; cur = parent.get(cur)) {
        const n = byId.get(cur);
        if (!n) break;
        const key = where(n);
        if (seen.has(key)) continue;
        seen.add(key);
        ms.set(key, (ms.get(key) ?? 0) + delta / 1000 / Math.max(1, runs));
      }
    }
    for (const [k, v] of selfMs) ms.set(k, v);
    return ms;
  };
  const a = perRun(early);
  const b = perRun(late);
  const keys = new Set([...a.keys(), ...b.keys()]);
  const rows = [...keys]
    // The garbage collector stays in (it grows with the live heap); idle and the root do not.
    .filter((k) => !/^(self )?\((idle|root)\)/.test(k))
    .map((k) => ({ k, a: a.get(k) ?? 0, b: b.get(k) ?? 0 }))
    .sort((x, y) => y.b - y.a - (x.b - x.a))
    .slice(0, top);
  process.stdout.write(
    `\ninclusive ms per run, turns 2–11 → turns ${late[0]?.turn}–${late.at(-1)?.turn}, by growth\n`,
  );
  const sum = (m: Map<string, number>) =>
    [...m]
      .filter(([k]) => k.startsWith("self ") && !k.startsWith("self (idle)"))
      .reduce((n, [, v]) => n + v, 0);
  process.stdout.write(`busy ms per run (profile): ${sum(a).toFixed(2)} → ${sum(b).toFixed(2)}\n`);
  for (const r of rows)
    process.stdout.write(`${r.a.toFixed(3).padStart(7)} → ${r.b.toFixed(3).padStart(7)}  ${r.k}\n`);
}
