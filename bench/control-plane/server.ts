import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { listeningUrl } from "@berth-platform/testkit";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** A `berth up` started for the benchmark on a fresh data directory. */
export interface ControlPlaneProcess {
  url: string;
  apiKey: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the built control plane on a free port with a known API key. */
export async function startControlPlane(): Promise<ControlPlaneProcess> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-cp-bench-"));
  const apiKey = "bench-key-0123456789abcdef";
  const child = spawn(
    process.execPath,
    [
      path.join(root, "packages/cli/bin/berth.js"),
      "up",
      "--port",
      "0",
      "--data-dir",
      dataDir,
      "--api-key",
      apiKey,
    ],
    { env: { ...process.env, BERTH_LOG_LEVEL: "warn" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const url = await listeningUrl(child, "berth up", 30_000).url;
  return {
    url,
    apiKey,
    process: child,
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The server's resident memory in MiB (Linux). */
export function rssMiB(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const kb = fs.readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
}
