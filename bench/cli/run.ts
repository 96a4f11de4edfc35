// CPU time of `berth` start-up per command (issue 28): each command line is run BENCH_ROUNDS times
// and its process's own CPU time (user + system, from process.cpuUsage() at exit, start-up
// included) is recorded; the peer is bare `node -e 0`, the least any Node CLI spends.
// Not a test: run `npm run bench:cli` (after `npm run build`) and read the figures.
// BENCH_BERTH_BIN compares another build's launcher (e.g. an older checkout's packages/cli/bin/berth.js).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BIN = path.resolve(process.env.BENCH_BERTH_BIN ?? path.join(root, "packages/cli/bin/berth.js"));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-bench-cli-"));
const cpuFile = path.join(dir, "cpu.json");
// Preloaded into each measured process: writes its CPU time as it exits.
const probe = `data:text/javascript,${encodeURIComponent(
  `import fs from "node:fs"; process.on("exit", () => fs.writeFileSync(${JSON.stringify(cpuFile)}, JSON.stringify(process.cpuUsage())));`,
)}`;

/** The command lines measured: the cheap ones, each command's help, and two that do real work. */
const CASES: Array<{ name: string; args: string[] }> = [
  { name: "node -e 0 (peer: bare Node)", args: ["-e", "0"] },
  { name: "berth --version", args: [BIN, "--version"] },
  { name: "berth --help", args: [BIN, "--help"] },
  ...["up", "dev", "serve", "deploy", "build", "listener", "deployments", "logs", "keys", "workspaces"].map(
    (command) => ({ name: `berth ${command} --help`, args: [BIN, command, "--help"] }),
  ),
  // A client command to its end: nothing listens on port 9, so it fails after one connect.
  {
    name: "berth deployments list (unreachable URL)",
    args: [BIN, "deployments", "list", "--url", "http://127.0.0.1:9", "--api-key", "k"],
  },
  // The agent server and the example's graphs loaded and checked.
  {
    name: "berth dev --check (example agent)",
    args: [BIN, "dev", "--check", "--config", path.join(root, "examples/react-agent/graph.json")],
  },
];

function cpuMs(args: string[]): number {
  fs.rmSync(cpuFile, { force: true });
  const result = spawnSync(process.execPath, ["--import", probe, ...args], {
    cwd: dir,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, BERTH_LOG_LEVEL: "error" },
    timeout: 300_000,
  });
  if (!fs.existsSync(cpuFile)) throw new Error(`${args.join(" ")}: no CPU figure (${result.stderr})`);
  const { user, system } = JSON.parse(fs.readFileSync(cpuFile, "utf8")) as { user: number; system: number };
  return (user + system) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

console.log(
  `berth start-up CPU (user + system), median of ${ROUNDS}; ${BIN}; load ${os.loadavg()[0]?.toFixed(1)}`,
);
console.log(`| command | median ms | min ms | max ms |\n|---|---|---|---|`);
for (const { name, args } of CASES) {
  const samples = Array.from({ length: ROUNDS }, () => cpuMs(args));
  const fmt = (v: number) => v.toFixed(0);
  console.log(
    `| ${name} | ${fmt(median(samples))} | ${fmt(Math.min(...samples))} | ${fmt(Math.max(...samples))} |`,
  );
}
fs.rmSync(dir, { recursive: true, force: true });
