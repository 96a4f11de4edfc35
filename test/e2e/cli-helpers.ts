// Running the built CLI to completion from e2e tests, and reading its --json output.
import { spawn } from "node:child_process";
import path from "node:path";
import { repoRoot } from "@berth-platform/testkit";

const bin = path.join(repoRoot, "packages/cli/bin/berth.js");

/** What a finished `berth` command printed, and its exit code. */
export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `berth args…` to completion, asynchronously (the control plane it talks to may be a child
 * of this process, which a synchronous spawn would block).
 */
export function runBerth(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once("exit", (status) => resolve({ status, stdout, stderr })));
}

/** `--json` output: one object per line. */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
