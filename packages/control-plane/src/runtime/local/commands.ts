import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { LaunchPlan } from "./isolation.js";

/** Lock files and the install command each one implies, in the order they are looked for. */
const LOCK_FILES: ReadonlyArray<readonly [file: string, command: string]> = [
  ["package-lock.json", "npm ci --no-audit --no-fund --prefer-offline"],
  ["npm-shrinkwrap.json", "npm ci --no-audit --no-fund --prefer-offline"],
  ["pnpm-lock.yaml", "pnpm install --frozen-lockfile"],
  ["yarn.lock", "yarn install --frozen-lockfile"],
  ["bun.lock", "bun install --frozen-lockfile"],
  ["bun.lockb", "bun install --frozen-lockfile"],
];

/** The install command for a project directory, from the package manager's lock file (npm without one). */
export function detectInstallCommand(dir: string): string {
  for (const [file, command] of LOCK_FILES) {
    if (fs.existsSync(path.join(dir, file))) return command;
  }
  return "npm install --no-audit --no-fund --prefer-offline";
}

/** How a command ended. */
export interface CommandResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
}

/** Longest output line kept in the log (a progress bar without newlines must not fill it). */
const MAX_LINE = 4_096;

/** How a command runs: where, with what, for how long, and where its lines go. */
export interface CommandOptions {
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  onLine: (stream: "stdout" | "stderr", line: string) => void;
  /** How to start the program (as the workspace's user, in its sandbox); default: directly. */
  launch?: (command: string, args: string[]) => LaunchPlan;
}

/**
 * Runs the user's own command line (`install_command` / `build_command`) with `/bin/sh -c`, as a
 * Dockerfile `RUN` would: the shell sees exactly the user's text and nothing Berth adds to it.
 * The process group is killed on timeout or abort, so a hung `npm` takes its children with it.
 */
export function runCommand(commandLine: string, options: CommandOptions): Promise<CommandResult> {
  return runProgram("/bin/sh", ["-c", commandLine], options);
}

/** Runs a program with an argument array (no shell), like runCommand otherwise. */
export function runProgram(
  program: string,
  programArgs: string[],
  options: CommandOptions,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const plan = options.launch?.(program, programArgs) ?? { command: program, args: programArgs };
    const child = spawn(plan.command, plan.args, {
      uid: plan.uid,
      gid: plan.gid,
      cwd: options.cwd,
      env: { ...options.env, CI: "true" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let timedOut = false;
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = () => killGroup();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    for (const name of ["stdout", "stderr"] as const) {
      let partial = "";
      child[name].setEncoding("utf8").on("data", (chunk: string) => {
        const lines = (partial + chunk).split(/\r?\n|\r/);
        partial = lines.pop() ?? "";
        for (const line of lines) if (line.trim()) options.onLine(name, line.slice(0, MAX_LINE));
      });
      child[name].on("end", () => {
        if (partial.trim()) options.onLine(name, partial.slice(0, MAX_LINE));
      });
    }
    child.once("error", (error) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.once("close", (exitCode, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({ exitCode, signal, timedOut });
    });
  });
}
