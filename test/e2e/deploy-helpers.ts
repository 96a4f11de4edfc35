import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { repoRoot } from "@berth-platform/testkit";
import { Client } from "@langchain/langgraph-sdk";

/** The project the deploy tests upload: an echo graph answering `<GREETING>: <text>[ <SUFFIX>]`. */
export const DEPLOY_FIXTURE = path.join(repoRoot, "test/fixtures/deploy-project");

/** Copies the fixture project to `dir` (a fresh directory outside the repository's workspaces). */
export function copyDeployFixture(dir: string): string {
  fs.cpSync(DEPLOY_FIXTURE, dir, { recursive: true });
  return dir;
}

/** Rewrites the fixture's greeting, so a new revision answers differently. */
export function setGreeting(project: string, greeting: string): void {
  fs.writeFileSync(
    path.join(project, "src/greeting.ts"),
    `/** Rewritten by the deploy tests. */\nexport const GREETING = ${JSON.stringify(greeting)};\n`,
  );
}

/** A finished child process. */
export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (no stdin), killing it after `timeoutMs`. */
export function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs the echo graph once through the official SDK at a deployment's URL and returns the answer. */
export async function askEcho(apiUrl: string, apiKey: string, text: string): Promise<string> {
  const client = new Client({ apiUrl, apiKey });
  const thread = await client.threads.create();
  const values = (await client.runs.wait(thread.thread_id, "echo", {
    input: { messages: [{ role: "user", content: text }] },
  })) as { messages?: Array<{ type?: string; content?: unknown }> };
  const last = values.messages?.at(-1);
  if (last?.type !== "ai") throw new Error(`no AI answer: ${JSON.stringify(values)}`);
  return String(last.content);
}
