import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { freePort } from "@berth-platform/testkit";
import { PEER_DIR, peerCliPath } from "./peer-install.js";
import { EXAMPLE_GRAPH_CONFIG, REPO_ROOT } from "./workload.js";

/** A server started by the bench, in its own process group so that stopping it leaves nothing behind. */
export interface RunningServer {
  readonly name: string;
  readonly url: string;
  /** Lines the server wrote after it was up (with log level warn, anything here is worth a look). */
  readonly logLines: () => readonly string[];
  /** CPU time (user + system) used so far by every process of the server's group; undefined off Linux. */
  cpuMs(): number | undefined;
  /** groupThreadCpuMs of the server's group (empty off Linux). */
  threadCpuMs(): Map<string, number>;
  /**
   * Resident memory (VmRSS of /proc/<pid>/status) of the process the bench spawned, in bytes;
   * undefined off Linux or once it is gone. For Berth that is the server itself; for the peer it
   * is only its CLI (the server is a grandchild), so the bench reads it for Berth alone.
   */
  rssBytes(): number | undefined;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 15_000;
const KEPT_LOG_LINES = 200;

/** Process groups still alive, killed hard if the bench itself dies or is interrupted. */
const liveGroups = new Set<number>();

process.once("exit", () => {
  for (const pgid of liveGroups) signalGroup(pgid, "SIGKILL");
});

function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Environment shared by both servers: quiet logs, the offline model, no tracing or telemetry. */
function serverEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // A key in the developer's shell would swap the scripted model for a real, networked one; a
  // database or Redis URL would take Berth out of its embedded mode unless the bench asks for it.
  for (const key of [
    "OPENAI_API_KEY",
    "LANGSMITH_TRACING",
    "LANGSMITH_TRACING_V2",
    "LANGCHAIN_TRACING",
    "LANGCHAIN_TRACING_V2",
    "PORT",
    "BERTH_PORT",
    "BERTH_WORKERS",
    "BERTH_ROLE",
    "DATABASE_URI",
    "REDIS_URI",
  ]) {
    delete env[key];
  }
  return Object.assign(env, extra);
}

/**
 * Spawns `command` detached (its own process group), keeps the tail of its output, and resolves
 * once the server answers GET /ok at the URL it printed (or at `fixedUrl`).
 */
async function startProcess(args: {
  name: string;
  command: string;
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  urlFromOutput?: (text: string) => string | undefined;
  fixedUrl?: string;
}): Promise<RunningServer> {
  const child = spawn(args.command, args.argv, {
    cwd: args.cwd,
    env: args.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const pgid = child.pid;
  if (pgid === undefined) throw new Error(`${args.name}: spawn failed`);
  liveGroups.add(pgid);

  const lines: string[] = [];
  let up = false;
  const afterUp: string[] = [];
  let buffered = "";
  const onData = (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      const line = buffered.slice(0, newline).trimEnd();
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf("\n");
      lines.push(line);
      if (lines.length > KEPT_LOG_LINES) lines.shift();
      if (up && line.trim() !== "" && afterUp.length < KEPT_LOG_LINES) afterUp.push(line);
    }
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const stop = async () => {
    if (!liveGroups.has(pgid)) return;
    signalGroup(pgid, "SIGTERM");
    const deadline = Date.now() + STOP_TIMEOUT_MS;
    // The group outlives its leader while children (the peer's tsx watcher, its server) shut down.
    while (Date.now() < deadline && signalGroup(pgid, 0)) await sleep(100);
    if (signalGroup(pgid, 0)) signalGroup(pgid, "SIGKILL");
    liveGroups.delete(pgid);
    await Promise.race([exited, sleep(1_000)]);
  };

  try {
    const url = await waitUntilUp(args, exited, () => lines.join("\n"));
    up = true;
    return {
      name: args.name,
      url,
      logLines: () => afterUp,
      cpuMs: () => groupCpuMs(pgid),
      threadCpuMs: () => groupThreadCpuMs(pgid),
      rssBytes: () => processRssBytes(pgid),
      stop,
    };
  } catch (error) {
    await stop();
    const tail = lines.slice(-25).join("\n");
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\n--- last output ---\n${tail}`,
    );
  }
}

async function waitUntilUp(
  args: { name: string; urlFromOutput?: (text: string) => string | undefined; fixedUrl?: string },
  exited: Promise<number | null>,
  output: () => string,
): Promise<string> {
  let exitCode: number | null | undefined;
  void exited.then((code) => {
    exitCode = code;
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`${args.name} exited with code ${exitCode} while starting`);
    const url = args.fixedUrl ?? args.urlFromOutput?.(output());
    if (url !== undefined && (await answersOk(url))) return url;
    await sleep(200);
  }
  throw new Error(`${args.name} did not answer GET /ok within ${START_TIMEOUT_MS / 1000} s`);
}

async function answersOk(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/ok`, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** Clock ticks per second of /proc/<pid>/stat: 100 on every Linux that Node supports. */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * CPU time of the live processes in a process group, in ms. The peer's server is a grandchild of
 * the CLI (cli → tsx watch → server), so the leader's own figures would miss nearly all of it.
 * Each thread's `schedstat` gives its time on CPU in ns; utime + stime of `stat` count 10 ms ticks,
 * which on one turn-sweep wave (32 runs, ~150 ms of CPU over a handful of threads) is an error of
 * several per cent. Threads that exit during a measurement are not counted by schedstat: neither
 * server starts and stops threads while it serves. Without schedstat (a kernel built without
 * CONFIG_SCHED_INFO) the ticks are used.
 */
export function groupCpuMs(pgid: number): number | undefined {
  let pids: string[];
  try {
    pids = fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  let ms = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue;
    }
    // The command name (field 2) may hold spaces and parentheses: the fields after it start after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Counting from field 3 (state): pgrp is field 5, utime 14, stime 15.
    if (Number(fields[2]) !== pgid) continue;
    ms += threadsCpuMs(pid) ?? ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  }
  return ms;
}

/**
 * Each live thread's time on CPU in a process group, in ms, by "pid/tid" (`main` for a process's
 * main thread): which thread's share grows with the thread length (profile-chat.ts).
 */
export function groupThreadCpuMs(pgid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) !== pgid) continue;
      for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
        const onCpu = Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
        out.set(`${pid}/${tid === pid ? "main" : tid}`, onCpu / 1e6);
      }
    } catch {}
  }
  return out;
}

/** The sum of a process's live threads' time on CPU (first field of schedstat, ns), in ms. */
function threadsCpuMs(pid: string): number | undefined {
  let ns = 0;
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      let schedstat: string;
      try {
        schedstat = fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue; // the thread just ended
        throw error;
      }
      const onCpu = Number(schedstat.split(" ")[0]);
      if (!Number.isFinite(onCpu)) return undefined;
      ns += onCpu;
    }
  } catch {
    return undefined;
  }
  return ns / 1e6;
}

/** VmRSS of one process, from /proc/<pid>/status (reported there in kB). */
function processRssBytes(pid: number): number | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export const BERTH_CLI = path.join(REPO_ROOT, "packages", "cli", "bin", "berth.js");
const BERTH_DIST = path.join(REPO_ROOT, "packages", "cli", "dist", "main.js");

/**
 * Berth's `dev` command on a free port with a fresh data directory, with `workers` server processes
 * (1 unless asked: the process the bench spawned serves alone, so its RSS is the server's).
 */
export async function startBerth(
  dataDir: string,
  options: {
    /** "default": no --workers flag, what `berth dev` does by itself (the chat bench's "defaults"). */
    workers?: number | "default";
    /** Another project than examples/react-agent (schemas.ts: one with its own node_modules). */
    config?: string;
    env?: Record<string, string>;
    /** Options for node itself, before the CLI (profile-chat.ts: --cpu-prof, not allowed in NODE_OPTIONS). */
    nodeArgs?: string[];
    /** Another build's `packages/cli/bin/berth.js` (sweep-ab.ts); default this tree's. */
    cli?: string;
    name?: string;
  } = {},
): Promise<RunningServer> {
  const workers = options.workers ?? 1;
  if (!fs.existsSync(BERTH_DIST)) {
    throw new Error(
      `${path.relative(REPO_ROOT, BERTH_DIST)} is missing: run \`npm run build\` at the root first`,
    );
  }
  return startProcess({
    name:
      options.name ??
      (workers === "default" ? "Berth defaults" : workers === 1 ? "Berth" : `Berth --workers ${workers}`),
    command: process.execPath,
    argv: [
      ...(options.nodeArgs ?? []),
      options.cli ?? BERTH_CLI,
      "dev",
      "--config",
      options.config ?? EXAMPLE_GRAPH_CONFIG,
      "--port",
      "0",
      "--data-dir",
      dataDir,
      "--no-watch",
      ...(workers === "default" ? [] : ["--workers", String(workers)]),
    ],
    cwd: options.config ? path.dirname(options.config) : REPO_ROOT,
    // No start-up parse of the graphs' TypeScript types unless asked (schemas.ts): a one-off of
    // seconds of CPU that the run phases would otherwise share.
    env: serverEnv({ BERTH_LOG_LEVEL: "warn", LOG_LEVEL: "warn", BERTH_SCHEMA_WARMUP: "0", ...options.env }),
    urlFromOutput: (text) => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1],
  });
}

/** `langgraphjs dev` (the official server, in-memory storage) for the generated peer project. */
export async function startPeer(projectConfig: string): Promise<RunningServer> {
  const port = await freePort();
  return startProcess({
    name: "peer",
    command: process.execPath,
    // The CLI's bin file run directly: `npx` would only add a process and a registry lookup.
    argv: [
      peerCliPath(),
      "dev",
      "--port",
      String(port),
      "--host",
      "127.0.0.1",
      "--no-browser",
      "--config",
      projectConfig,
    ],
    cwd: PEER_DIR,
    env: serverEnv({ LOG_LEVEL: "warn", LANGGRAPH_CLI_NO_ANALYTICS: "1", BROWSER: "none" }),
    fixedUrl: `http://127.0.0.1:${port}`,
  });
}

/**
 * `berth serve` (the production entry point) in one process on a free port: on the embedded SQLite
 * files of `dataDir`, or on PostgreSQL + Redis when `env` names them (DATABASE_URI, REDIS_URI).
 */
export async function startBerthServe(options: {
  name: string;
  dataDir?: string;
  env?: Record<string, string>;
  nodeArgs?: string[];
}): Promise<RunningServer> {
  if (!fs.existsSync(BERTH_DIST)) {
    throw new Error(
      `${path.relative(REPO_ROOT, BERTH_DIST)} is missing: run \`npm run build\` at the root first`,
    );
  }
  return startProcess({
    name: options.name,
    command: process.execPath,
    argv: [
      ...(options.nodeArgs ?? []),
      BERTH_CLI,
      "serve",
      "--config",
      EXAMPLE_GRAPH_CONFIG,
      "--port",
      "0",
      "--host",
      "127.0.0.1",
      ...(options.dataDir ? ["--data-dir", options.dataDir, "--workers", "1"] : []),
    ],
    cwd: REPO_ROOT,
    // info: `berth serve` says where it listens in its one info line per start.
    env: serverEnv({ BERTH_LOG_LEVEL: "info", BERTH_SCHEMA_WARMUP: "0", ...options.env }),
    urlFromOutput: (text) => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1],
  });
}
