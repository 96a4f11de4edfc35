import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { listeningUrl } from "@berth-platform/testkit";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** A `berth up` started for the benchmark on a fresh data directory, with its runtime. */
export interface BerthUp {
  url: string;
  apiKey: string;
  dataDir: string;
  process: ChildProcess;
  /** Stops the server (SIGTERM, SIGKILL after 30 s), any agent server it left, and removes the data. */
  stop(): Promise<void>;
}

/** One parsed response. */
export interface ApiResult {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the bench reads a few fields of arbitrary responses
  json: any;
}

/** Starts the built `berth up --no-example` on a free port with a known API key. */
export async function startBerthUp(): Promise<BerthUp> {
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), "berth-deploy-bench-"));
  const dataDir = path.join(temp, "data");
  const apiKey = "bench-deploy-key-0123456789abcdef";
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
      "--no-example",
    ],
    { env: { ...process.env, BERTH_LOG_LEVEL: "warn" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const listening = listeningUrl(child, "berth up", 30_000);
  let exited = child.exitCode !== null;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  const stop = async () => {
    if (!exited) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      await exit;
      clearTimeout(timer);
    }
    killLeftAgents(dataDir);
    fs.rmSync(temp, { recursive: true, force: true });
  };
  try {
    const url = await listening.url;
    return { url, apiKey, dataDir, process: child, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Agent servers a killed control plane could leave behind (recorded in each runtime.json). */
function killLeftAgents(dataDir: string): void {
  const deployments = path.join(dataDir, "deployments");
  if (!fs.existsSync(deployments)) return;
  for (const id of fs.readdirSync(deployments)) {
    try {
      const state = JSON.parse(fs.readFileSync(path.join(deployments, id, "runtime.json"), "utf8")) as {
        pid?: number;
      };
      if (state.pid) process.kill(state.pid, "SIGKILL");
    } catch {
      // no state, or the process is gone
    }
  }
}

/** A small client for the control plane API. */
export class Api {
  constructor(
    readonly url: string,
    readonly key: string,
  ) {}

  async call(method: string, route: string, body?: unknown): Promise<ApiResult> {
    const res = await fetch(`${this.url}${route}`, {
      method,
      headers: {
        "X-Api-Key": this.key,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  }

  /** `call`, failing unless the status is `expected`. */
  async expect(expected: number, method: string, route: string, body?: unknown): Promise<ApiResult["json"]> {
    const result = await this.call(method, route, body);
    if (result.status !== expected) {
      throw new Error(`${method} ${route}: ${result.status} ${JSON.stringify(result.json)}`);
    }
    return result.json;
  }
}
