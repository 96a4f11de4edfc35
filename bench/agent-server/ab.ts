// A/B of Berth builds (issue 12): each build is one single-process `berth dev` (BERTH_WORKERS=1) on its
// own data dir; 16/64-client create+join echo phases and a sequential phase alternate between the
// builds for N rounds, so a noisy machine hits both alike. Prints runs/s, server CPU per run
// (/proc utime+stime of the server) and p50, median and best of the rounds.
// node --import tsx bench/agent-server/ab.ts --cli base=/path/to/other/tree/packages/cli/bin/berth.js,new=packages/cli/bin/berth.js
// AB_ARGS_<label>="--max-semi-space-size=64" adds node flags to one build.
// --cli bare=bench/agent-server/bare-server.ts adds the bare server (see that file) to the rotation.
// Optional: --graph echo|agent (default echo), --client http|sdk (default http), --workers N (default 1), --rounds 3 --seconds 6 --clients 16,64 --seq 150 --prof DIR (node --cpu-prof per server).
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseClientKind } from "./http-client.js";
import { runLatency, runThroughput, warmUp, warmUpUnderLoad } from "./scenarios.js";
import { BERTH_CLI, groupCpuMs } from "./servers.js";
import { EXAMPLE_GRAPH_CONFIG, GRAPH_IDS, type GraphId, REPO_ROOT } from "./workload.js";

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const seconds = Number(flag("--seconds") ?? "6");
const rounds = Number(flag("--rounds") ?? "3");
const clientsList = (flag("--clients") ?? "16,64").split(",").map(Number);
const prof = flag("--prof");
const clientKind = parseClientKind(flag("--client"));
const graphId = (flag("--graph") ?? "echo") as GraphId;
if (!GRAPH_IDS.includes(graphId)) throw new Error(`--graph takes ${GRAPH_IDS.join(" or ")}`);
const seqRuns = Number(flag("--seq") ?? "150");
// --workers N: each build as an embedded cluster of N server processes (CPU counts the whole group).
const workers = flag("--workers") ?? "1";
// --cli label=path,label=path (default: this tree)
const clis = (flag("--cli") ?? `new=${BERTH_CLI}`).split(",").map((s) => s.split("=") as [string, string]);

/** CPU of the server's process group (the cluster's primary and children with --workers N). */
function cpuMs(pid: number): number {
  return groupCpuMs(pid) ?? Number.NaN;
}
function rss(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024;
}

interface Srv {
  label: string;
  child: ChildProcess;
  pid: number;
  url: string;
  dir: string;
}
async function start(label: string, cli: string): Promise<Srv> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-cost-"));
  const nodeArgs = [
    // A TypeScript entry (bare-server.ts, the least any server spends per run) runs under tsx.
    ...(cli.endsWith(".ts") ? ["--import", "tsx"] : []),
    ...(prof ? ["--cpu-prof", `--cpu-prof-dir=${prof}/${label}`] : []),
    ...(process.env.SRV_IMPORT ? ["--import", process.env.SRV_IMPORT] : []),
    // AB_ARGS_<label>="--flag ..." gives one build extra node flags (a V8 setting A/B on the same tree).
    ...(process.env[`AB_ARGS_${label}`]?.split(" ").filter(Boolean) ?? []),
  ];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BERTH_LOG_LEVEL: "warn",
    LOG_LEVEL: "warn",
    BERTH_WORKERS: workers,
    // The start-up parse of the graphs' TypeScript types (issue 29) is a one-off, not the runs measured.
    BERTH_SCHEMA_WARMUP: "0",
  };
  // AB_ENV_<label>="NAME=value NAME2=value" gives one build extra environment (a setting A/B on the same tree).
  for (const pair of process.env[`AB_ENV_${label}`]?.split(" ").filter(Boolean) ?? []) {
    const eq = pair.indexOf("=");
    if (eq > 0) env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  for (const k of [
    "OPENAI_API_KEY",
    "LANGSMITH_TRACING",
    "LANGSMITH_TRACING_V2",
    "LANGCHAIN_TRACING_V2",
    "PORT",
    "BERTH_PORT",
  ])
    delete env[k];
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs,
      cli,
      "dev",
      "--config",
      EXAMPLE_GRAPH_CONFIG,
      "--port",
      "0",
      "--data-dir",
      dir,
      "--no-watch",
    ],
    { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let buf = "";
    const on = (c: Buffer) => {
      buf += c.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(buf);
      if (m?.[1]) resolve(m[1]);
    };
    child.stdout?.on("data", on);
    child.stderr?.on("data", on);
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${buf}`)));
  });
  return { label, child, pid: child.pid as number, url, dir };
}

const servers: Srv[] = [];
// The servers run detached (their own process groups): a bench that fails must not leave them behind.
process.once("exit", () => {
  for (const s of servers) {
    try {
      process.kill(-s.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});
for (const [label, cli] of clis) servers.push(await start(label, cli));
// --warm-seconds S: each build's warm-up under 64 clients before the rounds (default 10).
const warmSeconds = Number(flag("--warm-seconds") ?? "10");
for (const s of servers) {
  await warmUp(s.url, graphId, 300, clientKind);
  await warmUpUnderLoad(s.url, graphId, 64, warmSeconds * 1000, clientKind);
}
const quiet = () => {};
const results = new Map<string, Array<{ rps: number; cpu: number; p50: number }>>();
const add = (k: string, v: { rps: number; cpu: number; p50: number }) =>
  results.set(k, [...(results.get(k) ?? []), v]);
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? servers : [...servers].reverse();
  for (const clients of clientsList) {
    for (const s of order) {
      const c0 = cpuMs(s.pid);
      const r = await runThroughput(
        s.url,
        graphId,
        clients,
        10,
        { perClient: 1e9, maxMs: seconds * 1000 },
        quiet,
        clientKind,
      );
      const c1 = cpuMs(s.pid);
      if (r.errors) console.log(`${s.label} ${clients}c errors ${r.errors}: ${r.firstError}`);
      add(`${s.label} ${clients}c`, { rps: r.perSecond, cpu: (c1 - c0) / r.completed, p50: r.latency.p50 });
    }
  }
  if (seqRuns > 0) {
    for (const s of order) {
      const c0 = cpuMs(s.pid);
      const r = await runLatency(s.url, graphId, { perClient: seqRuns, maxMs: 60_000 }, quiet, clientKind);
      const c1 = cpuMs(s.pid);
      add(`${s.label} seq`, { rps: r.perSecond, cpu: (c1 - c0) / r.completed, p50: r.latency.p50 });
    }
  }
  console.log(
    `round ${round + 1} done, load ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
for (const [k, v] of [...results].sort()) {
  const min = (xs: number[]) => Math.min(...xs);
  const max = (xs: number[]) => Math.max(...xs);
  console.log(
    `${k.padEnd(12)} runs/s med ${med(v.map((x) => x.rps)).toFixed(0)} max ${max(v.map((x) => x.rps)).toFixed(0)} | cpu ms/run med ${med(v.map((x) => x.cpu)).toFixed(2)} min ${min(v.map((x) => x.cpu)).toFixed(2)} | p50 med ${med(v.map((x) => x.p50)).toFixed(1)} min ${min(v.map((x) => x.p50)).toFixed(1)} ms  [${v.map((x) => `${x.rps.toFixed(0)}:${x.cpu.toFixed(2)}`).join(" ")}]`,
  );
}
for (const s of servers) console.log(`${s.label} rss ${rss(s.pid).toFixed(0)} MB`);
for (const s of servers) s.child.kill("SIGTERM");
await Promise.all(
  servers.map((s) => new Promise((r) => (s.child.exitCode !== null ? r(null) : s.child.once("exit", r)))),
);
for (const s of servers) fs.rmSync(s.dir, { recursive: true, force: true });
console.log(
  `load: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
