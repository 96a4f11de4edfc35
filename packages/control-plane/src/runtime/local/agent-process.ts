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
}

/** The spawn arguments of an agent server: loopback only, the deployment's data, hand-over mode. */
export function planAgentProcess(input: AgentPlanInput): AgentProcessPlan {
  const [command, ...prefix] = input.agentCommand;
  if (!command) throw new Error("The agent server command is empty.");
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
      "--wait-for-lock",
    ],
    env: { ...input.env, BERTH_LOG_LEVEL: input.env.BERTH_LOG_LEVEL ?? "info" },
    cwd: path.dirname(input.graphConfigPath),
    port: input.port,
    logFile: input.logFile,
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
    private readonly child: ChildProcess | null,
  ) {
    this.#exited = child
      ? new Promise((resolve) => {
          child.once("exit", () => {
            this.#alive = false;
            resolve();
          });
        })
      : this.#pollExit();
  }

  /** Starts the plan. */
  static start(plan: AgentProcessPlan): AgentProcess {
    const out = fs.openSync(plan.logFile, "a");
    const pidFile = `${plan.logFile.replace(/\.log$/, "")}.${Date.now()}.pid`;
    try {
      const child = spawn(plan.command, plan.args, {
        cwd: plan.cwd,
        env: plan.env,
        stdio: ["ignore", out, out],
        detached: true,
      });
      if (child.pid === undefined) throw new Error(`Could not start ${plan.command}`);
      child.unref();
      // Every process this runtime starts leaves a pid file until it exits, so a control plane
      // that crashed mid-switch can find and stop a process it never recorded as serving.
      fs.writeFileSync(pidFile, String(child.pid));
      child.once("exit", () => fs.rmSync(pidFile, { force: true }));
      return new AgentProcess(child.pid, plan.port, child);
    } finally {
      fs.closeSync(out);
    }
  }

  /** Takes over a process a previous control plane started (watched by polling its pid). */
  static adopt(pid: number, port: number): AgentProcess {
    return new AgentProcess(pid, port, null);
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
    signalGroup(this.pid, "SIGTERM");
    const timer = setTimeout(() => signalGroup(this.pid, "SIGKILL"), graceMs);
    await this.#exited;
    clearTimeout(timer);
  }

  async #pollExit(): Promise<void> {
    while (isAlive(this.pid)) await sleep(500);
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
