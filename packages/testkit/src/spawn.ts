import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { repoRoot } from "./paths.js";

/** A `berth` process started by a test, with its URL and output. */
export interface SpawnedServer {
  url: string;
  process: ChildProcess;
  output(): string;
  /** SIGTERM (graceful) or SIGKILL (crash), then wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const URL_LINE = /listening on (http:\/\/\S+)/i;

/**
 * The URL a started `berth` process prints (on stdout or stderr). Rejects with its output when it
 * exits first or stays silent past `timeoutMs`; `output()` keeps what it printed.
 */
export function listeningUrl(
  child: ChildProcess,
  label: string,
  timeoutMs: number,
): { url: Promise<string>; output(): string } {
  let output = "";
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label} printed no URL:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(URL_LINE);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited with ${code}:\n${output}`));
    });
  });
  return { url, output: () => output };
}

/**
 * Starts the built CLI (`packages/cli/bin/berth.js`, or another install's `bin`) with `args` and
 * resolves once it prints the URL it listens on. Rejects with its output if it exits or stays
 * silent past `timeoutMs`.
 */
export function spawnBerth(
  args: string[],
  options: { env?: Record<string, string>; timeoutMs?: number; cwd?: string; bin?: string } = {},
): Promise<SpawnedServer> {
  const bin = options.bin ?? path.join(repoRoot, "packages/cli/bin/berth.js");
  // Tests start one server process they can signal and kill: `berth dev` without its file watcher
  // (a supervisor in front), unless the test is about watching.
  const watchChosen = args.includes("--watch") || args.includes("--no-watch") || args.includes("--check");
  const argv = args[0] === "dev" && !watchChosen ? [...args, "--no-watch"] : args;
  const child = spawn(process.execPath, [bin, ...argv], {
    cwd: options.cwd ?? repoRoot,
    // One server process unless the test is about workers (`--workers`, BERTH_WORKERS): the
    // default (one per core) would make every test's timing and process count depend on the machine.
    // No schema parse at start-up unless the test is about schemas: seconds of CPU per server; no
    // /docs warm-up either (half a second of CPU a few seconds after start).
    env: {
      ...process.env,
      BERTH_LOG_LEVEL: "warn",
      BERTH_WORKERS: "1",
      BERTH_SCHEMA_WARMUP: "0",
      BERTH_DOCS_WARMUP: "0",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`berth ${args.join(" ")} printed no URL in time:\n${output}`));
    }, options.timeoutMs ?? 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(URL_LINE);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({
          url: match[1],
          process: child,
          output: () => output,
          async stop(signal = "SIGTERM") {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`berth ${args.join(" ")} exited with ${code} before listening:\n${output}`));
    });
  });
}
