import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { listeningUrl } from "@berth-platform/testkit";

/** The repository root. */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const cli = path.join(root, "packages/cli/bin/berth.js");

/** A Berth process started by the bench (its own data directory, removed on stop). */
export interface BenchProcess {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** The environment without anything that would trace or swap the offline model for a real one. */
function quietEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, BERTH_LOG_LEVEL: "warn", LOG_LEVEL: "warn" };
  for (const key of Object.keys(env)) {
    if (/^(LANGSMITH_|LANGCHAIN_)|^OPENAI_API_KEY$|^PORT$|^BERTH_PORT$/.test(key)) delete env[key];
  }
  return { ...env, ...extra };
}

/** Spawns `berth <args>` and resolves once it prints the URL it listens on. */
async function start(args: string[], env: Record<string, string>): Promise<BenchProcess> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-trace-bench-"));
  const child = spawn(process.execPath, [cli, ...args, "--port", "0", "--data-dir", dataDir], {
    cwd: root,
    env: quietEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = await listeningUrl(child, `berth ${args[0]}`, 60_000).url;
  return {
    url,
    process: child,
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `berth up` without the example deployment (nothing builds during the measurement). */
export function startControlPlane(apiKey: string): Promise<BenchProcess> {
  return start(["up", "--api-key", apiKey, "--no-example"], {});
}

/**
 * `berth dev` on the example project, with extra environment (tracing on or off). One server
 * process (`--workers 1`): the bench reads the CPU time of the process that runs the graph.
 */
export function startAgentServer(env: Record<string, string>): Promise<BenchProcess> {
  return start(
    ["dev", "--config", path.join(root, "examples/react-agent/graph.json"), "--no-watch", "--workers", "1"],
    // The start-up parse of the graphs' TypeScript types (issue 29) is a one-off, not what is measured.
    { BERTH_SCHEMA_WARMUP: "0", ...env },
  );
}
