// Issue 29's schema bench: how long `GET /assistants/{id}/schemas` (LangGraph Studio's first call
// when it opens a graph) takes on a project whose graphs' schemas only their TypeScript types hold
// (test/fixtures/official-graphs-project, its own node_modules): cold (fresh data directory), warm,
// after a restart (the on-disk cache), and all of it again under a CPU load of one busy process
// per core. Targets: p99 ≤ 50 ms once the server has answered /ok for 60 s, and a first call never
// longer than the parse itself. For reference, the lazy path (BERTH_SCHEMA_WARMUP=0: the first
// request parses) is measured cold too.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { type RunningServer, startBerth } from "./servers.js";
import { type LatencySummary, nowMs, summarize } from "./stats.js";
import { REPO_ROOT } from "./workload.js";

const USAGE = `Usage: node --import tsx bench/agent-server/schemas.ts [--quick]

  --quick   wait 10 s (not 60 s) after /ok before the steady-state sample; 50 requests (not 300)`;

const FIXTURE = path.join(REPO_ROOT, "test/fixtures/official-graphs-project");
const GRAPHS = ["agent", "agent_simple", "client_caller", "simple_runtime"];
/** The graph whose schemas need the parse (Annotation state, config annotation). */
const TYPED = "agent";

interface Phase {
  name: string;
  /** From `/ok` answering to the first `/schemas` answer (asked at once). */
  firstMs: number;
  /** Whether the first answer had the parsed (typed) config schema. */
  typed: boolean;
  /** From `/ok` to the cache file on disk (the background parse's end), when measured. */
  parsedMs?: number;
  /** `/schemas` of every graph, sequentially, after the wait. */
  steady?: LatencySummary;
  /** `/ok` and `GET /assistants/{graph}`, interleaved with the steady `/schemas` requests. */
  okFloor?: LatencySummary;
  assistantFloor?: LatencySummary;
}

async function get(url: string): Promise<{ ms: number; body: Record<string, unknown> }> {
  const started = nowMs();
  const response = await fetch(url);
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${JSON.stringify(body)}`);
  return { ms: nowMs() - started, body };
}

const hasTypedConfig = (body: Record<string, unknown>) =>
  Boolean(
    (body.config_schema as { properties?: Record<string, unknown> } | undefined)?.properties?.model_name,
  );

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One server life: start, first call right after /ok, optionally wait and sample the steady state. */
async function phase(
  projectDir: string,
  name: string,
  dataDir: string,
  options: { env?: Record<string, string>; waitMs?: number; samples: number; watchParse: boolean },
): Promise<Phase> {
  const server: RunningServer = await startBerth(dataDir, {
    config: path.join(projectDir, "langgraph.json"),
    env: { BERTH_SCHEMA_WARMUP: "1", ...options.env },
  });
  try {
    // startBerth resolves when the server prints its URL; /ok answers from then on.
    await get(`${server.url}/ok`);
    const okAt = nowMs();
    const cacheDir = path.join(dataDir, "schemas");
    let parsedMs: number | undefined;
    const watcher = options.watchParse
      ? (async () => {
          while (parsedMs === undefined && nowMs() - okAt < 600_000) {
            if (fs.existsSync(cacheDir) && fs.readdirSync(cacheDir).some((f) => f.startsWith(`${TYPED}@`)))
              parsedMs = nowMs() - okAt;
            else await sleep(20);
          }
        })()
      : Promise.resolve();
    const first = await get(`${server.url}/assistants/${TYPED}/schemas`);
    const result: Phase = { name, firstMs: first.ms, typed: hasTypedConfig(first.body) };
    if (first.ms > 1_000 && !options.watchParse) {
      // A restart that parsed again: say what the server said.
      console.error(
        `${name}: first call ${first.ms.toFixed(0)} ms; cache ${fs.readdirSync(cacheDir).join(", ")}`,
      );
      for (const line of server.logLines()) console.error(`  ${line}`);
    }
    await watcher;
    if (parsedMs !== undefined) result.parsedMs = parsedMs;
    if (options.waitMs !== undefined) {
      const left = options.waitMs - (nowMs() - okAt);
      if (left > 0) await sleep(left);
      // Interleaved with the floors of the same moment: /ok (no storage) and the assistant itself
      // (the same storage read /schemas makes), so the machine's own jitter is told apart.
      const samples: number[] = [];
      const ok: number[] = [];
      const assistant: number[] = [];
      for (let i = 0; i < options.samples; i += 1) {
        const graph = GRAPHS[i % GRAPHS.length];
        samples.push((await get(`${server.url}/assistants/${graph}/schemas`)).ms);
        ok.push((await get(`${server.url}/ok`)).ms);
        assistant.push((await get(`${server.url}/assistants/${graph}`)).ms);
      }
      result.steady = summarize(samples);
      result.okFloor = summarize(ok);
      result.assistantFloor = summarize(assistant);
    }
    return result;
  } finally {
    await server.stop();
  }
}

/** One busy process per core, until stopped. */
function cpuLoad(): () => void {
  const children = Array.from({ length: os.availableParallelism() }, () =>
    spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }),
  );
  return () => {
    for (const child of children) child.kill("SIGKILL");
  };
}

function row(p: Phase): string {
  const steady = p.steady
    ? `p50 ${p.steady.p50.toFixed(1)} ms, p99 ${p.steady.p99.toFixed(1)} ms, max ${p.steady.max.toFixed(1)} ms (${p.steady.count})`
    : "-";
  const parsed = p.parsedMs !== undefined ? `${(p.parsedMs / 1000).toFixed(1)} s` : "-";
  const floor = (f: LatencySummary | undefined) => (f ? `${f.p50.toFixed(1)} / ${f.p99.toFixed(1)} ms` : "-");
  return `| ${p.name} | ${p.firstMs.toFixed(0)} ms${p.typed ? "" : " (untyped)"} | ${parsed} | ${steady} | ${floor(p.okFloor)} | ${floor(p.assistantFloor)} |`;
}

const { values } = parseArgs({ options: { quick: { type: "boolean" }, help: { type: "boolean" } } });
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const waitMs = values.quick ? 10_000 : 60_000;
const samples = values.quick ? 50 : 300;

const root = fs.mkdtempSync(path.join(os.tmpdir(), "berth-bench-schemas-"));
const projectDir = path.join(root, "project");
try {
  fs.cpSync(FIXTURE, projectDir, { recursive: true, filter: (src) => !src.includes("node_modules") });
  execFileSync("npm", ["ci", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"], {
    cwd: projectDir,
    stdio: "ignore",
  });
  const loadBefore = os.loadavg()[0]?.toFixed(1);
  const phases: Phase[] = [];
  const quiet = path.join(root, "quiet");
  phases.push(
    await phase(projectDir, "lazy, cold (BERTH_SCHEMA_WARMUP=0)", path.join(root, "lazy"), {
      env: { BERTH_SCHEMA_WARMUP: "0" },
      samples,
      watchParse: false,
    }),
  );
  phases.push(await phase(projectDir, "cold", quiet, { waitMs, samples, watchParse: true }));
  phases.push(await phase(projectDir, "after a restart", quiet, { samples, waitMs: 0, watchParse: false }));
  const stopLoad = cpuLoad();
  try {
    const loaded = path.join(root, "loaded");
    phases.push(await phase(projectDir, "cold, CPU load", loaded, { waitMs, samples, watchParse: true }));
    phases.push(
      await phase(projectDir, "after a restart, CPU load", loaded, { waitMs, samples, watchParse: false }),
    );
  } finally {
    stopLoad();
  }
  console.log(
    `schemas bench on ${os.availableParallelism()} cores, load average ${loadBefore} before; steady state sampled ${waitMs / 1000} s after /ok`,
  );
  console.log(
    "| phase | first /schemas after /ok | parse done after /ok | steady /schemas | /ok p50 / p99 | GET assistant p50 / p99 |",
  );
  console.log("|---|---:|---:|---|---:|---:|");
  for (const p of phases) console.log(row(p));
  for (const p of phases.filter((x) => x.steady && x.name.includes("CPU load"))) {
    const p99 = p.steady?.p99 ?? Number.NaN;
    console.log(`${p99 <= 50 ? "PASS" : "MISS"} ${p.name}: steady p99 ${p99.toFixed(1)} ms (target ≤ 50 ms)`);
  }
  for (const p of phases.filter((x) => x.parsedMs !== undefined)) {
    // The first call is asked at /ok and answered when the parse ends (or at once from the cache).
    const ok = p.firstMs <= (p.parsedMs ?? 0) + 1_000;
    console.log(
      `${ok ? "PASS" : "MISS"} ${p.name}: first call ${p.firstMs.toFixed(0)} ms, parse ${p.parsedMs?.toFixed(0)} ms after /ok`,
    );
  }
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
