// Production mode's cost (issue 31 item 3): `berth serve` on PostgreSQL + Redis against the same
// command on its embedded SQLite files, one process each, both up at once and loaded in turn
// (interleaved rounds, so a busy neighbour hits both alike). Per run: Berth's CPU, the CPU of its
// PostgreSQL backends and of redis-server, the statements and Redis commands it sent (counted in
// the process by count-io.mjs). Usage (build first):
//   DATABASE_URL=postgresql://… REDIS_URL=redis://… npm run bench:prod -- [--quick] [--graph echo|agent] [--rounds 3] [--seconds 6]
// BERTH_BENCH_IO_TEXT=1 also counts statements by text; BERTH_BENCH_PROF_DIR=<dir> profiles the
// embedded and PostgreSQL servers (`node --cpu-prof`, one directory each); BERTH_BENCH_PERF=1 starts
// them with --perf-basic-prof for `perf` (wall-clock V8 profiles mislead on a busy machine).
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { chatThroughput } from "./chat-phases.js";
import { warmUp, warmUpUnderLoad } from "./scenarios.js";
import { type RunningServer, startBerthServe } from "./servers.js";
import { BENCH_DIR, type GraphId } from "./workload.js";

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    graph: { type: "string", default: "echo" },
    rounds: { type: "string" },
    seconds: { type: "string" },
    clients: { type: "string", default: "16" },
    /** Also PostgreSQL + Redis with the roles apart (1 API + 1 worker process): CPU per run per role. */
    split: { type: "boolean", default: false },
  },
});
const quick = values.quick === true;
const graphId = values.graph as GraphId;
const rounds = Number(values.rounds ?? (quick ? 1 : 3));
const seconds = Number(values.seconds ?? (quick ? 2 : 6));
const clients = Number(values.clients);
const databaseUrl = process.env.DATABASE_URL ?? "";
const redisUrl = process.env.REDIS_URL ?? "";
if (!databaseUrl || !redisUrl) throw new Error("DATABASE_URL and REDIS_URL are needed");

interface Counts {
  pgQueries: number;
  pgByVerb: Record<string, number>;
  pgByText?: Record<string, number>;
  redisCommands: number;
  redisByName: Record<string, number>;
  redisBatches: number;
}
interface Mode {
  key: "embedded" | "pg" | "split";
  server: RunningServer;
  countsFile: string;
  /** split: the worker process (`--role worker`) beside the API (`--role api`, `server`). */
  worker?: { server: RunningServer; countsFile: string };
  pgApp?: string;
  samples: Array<{
    runs: number;
    perSecond: number;
    berth: number;
    /** split: the API's and the worker's shares of `berth`. */
    api?: number;
    worker?: number;
    pgCpu?: number;
    redisCpu?: number;
    io: Counts;
  }>;
}

/** With BERTH_BENCH_PROF_DIR: `node --cpu-prof` for the server, its profile in <dir>/<mode>. */
const profile = (mode: string) => [
  ...(process.env.BERTH_BENCH_PROF_DIR
    ? ["--cpu-prof", "--cpu-prof-dir", path.join(process.env.BERTH_BENCH_PROF_DIR, mode)]
    : []),
  // For `perf record -g -p <pid>`: JIT frames named.
  ...(process.env.BERTH_BENCH_PERF ? ["--perf-basic-prof"] : []),
];
const loadAverage = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const log = (line: string) => process.stdout.write(`${line}\n`);
const readCounts = (file: string): Counts =>
  JSON.parse(fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "null") ?? {
    pgQueries: 0,
    pgByVerb: {},
    redisCommands: 0,
    redisByName: {},
    redisBatches: 0,
  };
/** The API's and the worker's counts together (split mode). */
function addCounts(a: Counts, b: Counts | undefined): Counts {
  if (!b) return a;
  const add = (x: Record<string, number>, y: Record<string, number>) => {
    const out = { ...x };
    for (const [k, v] of Object.entries(y)) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  return {
    pgQueries: a.pgQueries + b.pgQueries,
    pgByVerb: add(a.pgByVerb, b.pgByVerb),
    pgByText: add(a.pgByText ?? {}, b.pgByText ?? {}),
    redisCommands: a.redisCommands + b.redisCommands,
    redisByName: add(a.redisByName, b.redisByName),
    redisBatches: a.redisBatches + b.redisBatches,
  };
}
const diff = (a: Record<string, number>, b: Record<string, number>) =>
  Object.fromEntries(Object.keys(b).map((k) => [k, (b[k] ?? 0) - (a[k] ?? 0)]));

function processCpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

function redisServerPid(): number | undefined {
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/comm`, "utf8").trim() === "redis-server") return Number(name);
    } catch {}
  }
  return undefined;
}

async function main() {
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  const schema = `bench_${randomBytes(4).toString("hex")}`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "berth-bench-prod-"));
  const preload = ["--import", path.join(BENCH_DIR, "count-io.mjs")];
  const redisPid = redisServerPid();
  const backendCpu = async (app: string) => {
    const { rows } = await admin.query<{ pid: number }>(
      "select pid from pg_stat_activity where application_name = $1",
      [app],
    );
    return rows.reduce((sum, r) => sum + processCpuMs(r.pid), 0);
  };
  const modes: Mode[] = [];
  const schemasToDrop = [schema];
  log(
    `prod bench: ${graphId}, ${clients} clients, ${rounds} rounds of ${seconds} s; load average ${loadAverage()}`,
  );
  try {
    const embeddedCounts = path.join(tmp, "embedded.json");
    modes.push({
      key: "embedded",
      countsFile: embeddedCounts,
      samples: [],
      server: await startBerthServe({
        name: "embedded",
        dataDir: path.join(tmp, "data"),
        nodeArgs: [...preload, ...profile("embedded")],
        env: { BERTH_BENCH_IO_COUNTS: embeddedCounts },
      }),
    });
    const pgCounts = path.join(tmp, "pg.json");
    modes.push({
      key: "pg",
      countsFile: pgCounts,
      pgApp: schema,
      samples: [],
      server: await startBerthServe({
        name: "pg",
        nodeArgs: [...preload, ...profile("pg")],
        env: {
          DATABASE_URI: databaseUrl,
          REDIS_URI: redisUrl,
          BERTH_DATABASE_SCHEMA: schema,
          REDIS_KEY_PREFIX: `${schema}:`,
          BERTH_BENCH_IO_COUNTS: pgCounts,
          BERTH_BENCH_PG_APP: schema,
          ...(process.env.BERTH_BENCH_IO_TEXT
            ? { BERTH_BENCH_IO_TEXT: process.env.BERTH_BENCH_IO_TEXT }
            : {}),
        },
      }),
    });
    if (values.split) {
      const splitSchema = `${schema}_split`;
      const apiCounts = path.join(tmp, "split-api.json");
      const workerCounts = path.join(tmp, "split-worker.json");
      const env = (counts: string, role: string) => ({
        DATABASE_URI: databaseUrl,
        REDIS_URI: redisUrl,
        BERTH_DATABASE_SCHEMA: splitSchema,
        REDIS_KEY_PREFIX: `${splitSchema}:`,
        BERTH_BENCH_IO_COUNTS: counts,
        BERTH_BENCH_PG_APP: splitSchema,
        BERTH_ROLE: role,
      });
      schemasToDrop.push(splitSchema);
      // The API first: it migrates the schema.
      const api = await startBerthServe({ name: "split api", nodeArgs: preload, env: env(apiCounts, "api") });
      const worker = await startBerthServe({
        name: "split worker",
        nodeArgs: preload,
        env: env(workerCounts, "worker"),
      }).catch(async (error: unknown) => {
        await api.stop();
        throw error;
      });
      modes.push({
        key: "split",
        countsFile: apiCounts,
        pgApp: splitSchema,
        samples: [],
        server: api,
        worker: { server: worker, countsFile: workerCounts },
      });
    }
    for (const mode of modes) {
      await warmUp(mode.server.url, graphId, quick ? 3 : 20);
      await warmUpUnderLoad(mode.server.url, graphId, clients, quick ? 500 : 5_000);
    }
    for (let round = 0; round < rounds; round += 1) {
      const order = round % 2 === 0 ? modes : [...modes].reverse();
      for (const mode of order) {
        const io0 = addCounts(readCounts(mode.countsFile), mode.worker && readCounts(mode.worker.countsFile));
        const worker0 = mode.worker?.server.cpuMs() ?? 0;
        const pg0 = mode.pgApp ? await backendCpu(mode.pgApp) : undefined;
        const redis0 = redisPid ? processCpuMs(redisPid) : undefined;
        const berth0 = mode.server.cpuMs() ?? 0;
        const load = await chatThroughput(
          mode.server,
          graphId,
          clients,
          { perClient: Number.MAX_SAFE_INTEGER, maxMs: seconds * 1000 },
          "http",
        );
        const berth1 = mode.server.cpuMs() ?? 0;
        const worker1 = mode.worker?.server.cpuMs() ?? 0;
        const redis1 = redisPid ? processCpuMs(redisPid) : undefined;
        const pg1 = mode.pgApp ? await backendCpu(mode.pgApp) : undefined;
        await new Promise((resolve) => setTimeout(resolve, 300)); // the preload writes every 200 ms
        const io1 = addCounts(readCounts(mode.countsFile), mode.worker && readCounts(mode.worker.countsFile));
        const runs = Math.max(1, load.phase.completed);
        mode.samples.push({
          runs,
          perSecond: load.phase.perSecond,
          berth: (berth1 - berth0 + worker1 - worker0) / runs,
          ...(mode.worker ? { api: (berth1 - berth0) / runs, worker: (worker1 - worker0) / runs } : {}),
          ...(pg0 !== undefined && pg1 !== undefined ? { pgCpu: (pg1 - pg0) / runs } : {}),
          ...(redis0 !== undefined && redis1 !== undefined ? { redisCpu: (redis1 - redis0) / runs } : {}),
          io: {
            pgQueries: io1.pgQueries - io0.pgQueries,
            pgByVerb: diff(io0.pgByVerb, io1.pgByVerb),
            pgByText: diff(io0.pgByText ?? {}, io1.pgByText ?? {}),
            redisCommands: io1.redisCommands - io0.redisCommands,
            redisByName: diff(io0.redisByName, io1.redisByName),
            redisBatches: io1.redisBatches - io0.redisBatches,
          },
        });
        log(
          `round ${round + 1} ${mode.key}: ${load.phase.perSecond.toFixed(1)} runs/s, Berth ${((berth1 - berth0 + worker1 - worker0) / runs).toFixed(2)} ms CPU/run` +
            (pg0 !== undefined && pg1 !== undefined
              ? `, PostgreSQL ${((pg1 - pg0) / runs).toFixed(2)} ms/run`
              : "") +
            (load.phase.errors ? `, ${load.phase.errors} ERRORS (${load.phase.firstError})` : "") +
            `; load average ${loadAverage()}`,
        );
      }
    }
    log(report(modes));
  } finally {
    await Promise.all(modes.flatMap((m) => [m.server.stop(), m.worker?.server.stop()]));
    for (const name of schemasToDrop)
      await admin.query(`drop schema if exists "${name}" cascade`).catch(() => {});
    await admin.end();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.floor((s.length - 1) / 2)] as number) : Number.NaN;
};

function report(modes: Mode[]): string {
  const [embedded, pgMode] = modes as [Mode, Mode];
  const title: Record<Mode["key"], string> = {
    embedded: "embedded (SQLite)",
    pg: "PostgreSQL + Redis",
    split: "PG + Redis, 1 API + 1 worker",
  };
  const lines = [
    "",
    `| per run (median of rounds) | ${modes.map((m) => title[m.key]).join(" | ")} |`,
    `|---|${modes.map(() => "---:|").join("")}`,
  ];
  const cell = (m: Mode, f: (s: Mode["samples"][number]) => number | undefined, d = 2) => {
    const xs = m.samples.map(f).filter((x): x is number => x !== undefined);
    return xs.length ? median(xs).toFixed(d) : "—";
  };
  const row = (
    label: string,
    f: (s: Mode["samples"][number]) => number | undefined,
    d = 2,
    embeddedToo = true,
  ) =>
    lines.push(
      `| ${label} | ${modes.map((m) => (m.key === "embedded" && !embeddedToo ? "—" : cell(m, f, d))).join(" | ")} |`,
    );
  row(`runs/s, ${clients} clients`, (s) => s.perSecond, 1);
  row("Berth CPU ms/run (all its processes)", (s) => s.berth);
  if (modes.some((m) => m.worker)) {
    row("… of which the API process", (s) => s.api);
    row("… of which the worker process", (s) => s.worker);
  }
  row("PostgreSQL backends' CPU ms/run", (s) => s.pgCpu, 2, false);
  row("redis-server CPU ms/run (shared with other users of this Redis)", (s) => s.redisCpu);
  row("PostgreSQL statements (round trips)/run", (s) => s.io.pgQueries / s.runs, 2, false);
  row("Redis commands/run", (s) => s.io.redisCommands / s.runs, 2, false);
  row("Redis pipelines/run", (s) => s.io.redisBatches / s.runs, 2, false);
  const ratios = pgMode.samples.map((s, i) => s.berth / (embedded.samples[i]?.berth ?? Number.NaN));
  lines.push(
    "",
    `Berth CPU per run, PostgreSQL + Redis / embedded, per round: ${ratios.map((r) => `${r.toFixed(2)}×`).join(", ")} (target ≤ 1.3×)`,
  );
  const total = (f: (c: Counts) => Record<string, number>, separator = ", ") => {
    const sum: Record<string, number> = {};
    let runs = 0;
    for (const s of pgMode.samples) {
      runs += s.runs;
      for (const [k, v] of Object.entries(f(s.io))) sum[k] = (sum[k] ?? 0) + v;
    }
    return Object.entries(sum)
      .filter(([, v]) => v > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${(v / Math.max(1, runs)).toFixed(2)}`)
      .join(separator);
  };
  lines.push(`Statements per run by verb: ${total((c) => c.pgByVerb)}`);
  lines.push(`Redis commands per run by name: ${total((c) => c.redisByName)}`);
  if (process.env.BERTH_BENCH_IO_TEXT === "1") {
    lines.push(
      "Statements per run by text:",
      total((c) => c.pgByText ?? {}, "\n"),
    );
  }
  lines.push(`load average at the end: ${loadAverage()}`);
  return lines.join("\n");
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
