import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** How to start one revision's agent server (pure data: tested directly, carried out below). */
export interface AgentProcessPlan {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  port: number;
  /** File that receives the process's stdout and stderr (the deploy log's source). */
  logFile: string;
  /** The credential the agent server requires on every request but `/ok` (only the proxy has it). */
  token: string;
  /** Other agent servers of the deployment share its data directory (Redis between them). */
  shared: boolean;
  /** The workspace's OS user, when it has one. */
  uid?: number;
  gid?: number;
}

/** Inputs of a plan. */
export interface AgentPlanInput {
  /** The program that runs an agent server, e.g. `[node, berth.js, "dev"]`. */
  agentCommand: readonly string[];
  graphConfigPath: string;
  dataDir: string;
  port: number;
  env: Record<string, string>;
  logFile: string;
  token: string;
  /** The agent server's heap limit in MB (resource_spec's memory limit), or null for Node's default. */
  heapMb?: number | null;
  /**
   * Redis shared by the deployment's agent servers (null: none). With it, the old and the new
   * revision open the data directory at once and reach each other's runs through Redis.
   */
  redis?: { url: string; keyPrefix: string } | null;
  /** How long a replaced agent server may take before it is killed (the runtime's drain period). */
  drainGraceMs?: number;
}

/**
 * The spawn arguments of an agent server: loopback only, the deployment's data, and either the
 * hand-over mode (serve, take the data directory once the previous revision exits) or, with
 * Redis, the shared mode (both revisions on the data directory at once).
 */
export function planAgentProcess(input: AgentPlanInput): AgentProcessPlan {
  const [command, ...prefix] = input.agentCommand;
  if (!command) throw new Error("The agent server command is empty.");
  const redis = input.redis ?? null;
  return {
    command,
    args: [
      ...prefix,
      "--config",
      input.graphConfigPath,
      "--host",
      "127.0.0.1",
      "--port",
      String(input.port),
      "--data-dir",
      input.dataDir,
      // The previous revision may still hold the data directory: serve, then take over when it exits.
      ...(redis ? [] : ["--wait-for-lock"]),
      // A deployed revision is immutable: no file watcher, no supervisor process in front.
      "--no-watch",
      // The deploy log reads levels from JSON lines.
      "--log-format",
      "json",
    ],
    env: {
      ...input.env,
      // Appended, so the user's own NODE_OPTIONS (a secret) keep working beside the limit.
      ...(input.heapMb
        ? { NODE_OPTIONS: `${input.env.NODE_OPTIONS ?? ""} --max-old-space-size=${input.heapMb}`.trim() }
        : {}),
      BERTH_LOG_LEVEL: input.env.BERTH_LOG_LEVEL ?? "info",
      BERTH_AGENT_TOKEN: input.token,
      // After the secrets: a deployment cannot point its agent servers at another's keys.
      ...(redis
        ? { REDIS_URI: redis.url, REDIS_KEY_PREFIX: redis.keyPrefix, BERTH_SHARED_DATA_DIR: "1" }
        : {}),
      // Shared mode: runs still going near the end of the drain are handed back to the queue (the
      // new revision resumes them at once) before the kill; a killed process's runs would wait
      // for their leases to expire. The deployment's own setting (a secret) wins.
      ...(redis &&
      input.env.BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS === undefined &&
      input.drainGraceMs !== undefined
        ? {
            BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: String(Math.max(0, Math.floor(input.drainGraceMs / 1000) - 2)),
          }
        : {}),
    },
    cwd: path.dirname(input.graphConfigPath),
    port: input.port,
    logFile: input.logFile,
    token: input.token,
    shared: redis !== null,
  };
}

/**
 * A running agent server. It is started detached with its output in a file, so it survives a
 * crash of the control plane and can be adopted by the next one.
 */
export class AgentProcess {
  readonly #exited: Promise<void>;
  #alive = true;

  private constructor(
    readonly pid: number,
    readonly port: number,
    /** The credential its requests must carry. */
    readonly token: string,
    private readonly child: ChildProcess | null,
  ) {
    // Exited means the whole process group is gone: once the leader (the agent server, or the
    // sandbox around it) has exited, whatever is left of its group is an orphan and is killed.
    this.#exited = child
      ? new Promise<void>((resolve) => child.once("exit", () => resolve())).then(() => this.#pollExit())
      : this.#pollExit();
  }

  /** Starts the plan. */
  static start(plan: AgentProcessPlan): AgentProcess {
    const out = fs.openSync(plan.logFile, "a");
    // stderr apart, so the deploy log can tell an error printed by Node or the CLI from output.
    const err = fs.openSync(stderrFileOf(plan.logFile), "a");
    const pidFile = `${plan.logFile.replace(/\.log$/, "")}.${Date.now()}.pid`;
    try {
      const child = spawn(plan.command, plan.args, {
        uid: plan.uid,
        gid: plan.gid,
        cwd: plan.cwd,
        env: plan.env,
        stdio: ["ignore", out, err],
        detached: true,
      });
      if (child.pid === undefined) throw new Error(`Could not start ${plan.command}`);
      child.unref();
      // Every process this runtime starts leaves a pid file until it exits, so a control plane
      // that crashed mid-switch can find and stop a process it never recorded as serving.
      fs.writeFileSync(pidFile, String(child.pid));
      child.once("exit", () => fs.rmSync(pidFile, { force: true }));
      return new AgentProcess(child.pid, plan.port, plan.token, child);
    } finally {
      fs.closeSync(out);
      fs.closeSync(err);
    }
  }

  /** Takes over a process a previous control plane started (watched by polling its pid). */
  static adopt(pid: number, port: number, token = ""): AgentProcess {
    return new AgentProcess(pid, port, token, null);
  }

  /** The agent server's base URL. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** Resolves when the process has exited. */
  get exited(): Promise<void> {
    return this.#exited;
  }

  /** Exit code of a process this control plane started (null for adopted ones or signals). */
  get exitCode(): number | null {
    return this.child?.exitCode ?? null;
  }

  /**
   * Waits until `/ok` answers 200; rejects when the process exits first, on timeout or on abort.
   */
  async waitHealthy(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      signal?.throwIfAborted();
      if (!this.#alive) throw new Error(`the agent server exited (code ${this.exitCode ?? "unknown"})`);
      if (await isHealthy(this.url)) return;
      await sleep(100);
    }
    throw new Error(`the agent server did not answer GET /ok within ${Math.round(timeoutMs / 1000)} s`);
  }

  /** SIGTERM (graceful: the agent server hands unfinished runs back), SIGKILL after `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    if (!this.#alive) return;
    signalAgent(this.pid, "SIGTERM");
    const timer = setTimeout(() => signalGroup(this.pid, "SIGKILL"), graceMs);
    await this.#exited;
    clearTimeout(timer);
  }

  async #pollExit(): Promise<void> {
    while (isAlive(this.pid)) await sleep(500);
    if (groupAlive(this.pid)) signalGroup(this.pid, "SIGKILL");
    while (groupAlive(this.pid)) await sleep(100);
    this.#alive = false;
  }
}

/** Whether `GET {url}/ok` answers 200 within a second. */
export async function isHealthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/ok`, { signal: AbortSignal.timeout(1_000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * Whether `pid` is an agent server of the data directory `dataDir` (its command line names it):
 * a pid in a file may belong to an unrelated process after a reboot. Without /proc (not Linux),
 * liveness is all there is to go on.
 */
export function isAgentOf(pid: number, dataDir: string): boolean {
  if (!isAlive(pid)) return false;
  if (!fs.existsSync("/proc/self/cmdline")) return true;
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(dataDir);
  } catch {
    return false;
  }
}

/** Whether a process exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether any process of the group led by `pid` is left. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Signals an agent server. Inside a bubblewrap sandbox, SIGTERM goes to the processes in the
 * sandbox only: bubblewrap itself would die at once and leave the draining server unwatched (and
 * signalling the sandbox's own init would kill everything in it).
 */
function signalAgent(pid: number, signal: NodeJS.Signals): void {
  if (commandName(pid) === "bwrap") {
    const inside = groupMembers(pid).filter((member) => member !== pid && commandName(member) !== "bwrap");
    if (inside.length > 0) {
      for (const member of inside) {
        try {
          process.kill(member, signal);
        } catch {
          // gone meanwhile
        }
      }
      return;
    }
  }
  signalGroup(pid, signal);
}

/** The short command name of a process (Linux /proc), or null. */
function commandName(pid: number): string | null {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return null;
  }
}

/** The processes of the group `pgid` (Linux /proc; empty elsewhere). */
function groupMembers(pgid: number): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const entry of entries) {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command name (which may hold spaces and parentheses): state ppid pgrp …
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid) members.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return members;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    // Detached: the process leads its own group; its children (tools a graph started) go too.
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/** The file an agent server's stderr goes to, beside its stdout log file. */
export function stderrFileOf(logFile: string): string {
  return `${logFile.replace(/\.log$/, "")}.stderr.log`;
}
