// The README's SDK example runs as written (issue 13: it used to fail with `KEY is not defined`):
// its TypeScript block is taken from README.md and run with tsx against a real agent server.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempDir, repoRoot, type SpawnedServer, spawnBerth } from "@berth-platform/testkit";

describe("README: the SDK example", () => {
  const temp = makeTempDir();
  let server: SpawnedServer;
  // In the repository root, where `npx tsx example.mts` resolves the SDK as a newcomer's would.
  const script = path.join(repoRoot, `.readme-example-${process.pid}.mts`);
  before(async () => {
    server = await spawnBerth([
      "dev",
      "--config",
      path.join(repoRoot, "examples/react-agent/graph.json"),
      "--port",
      "0",
      "--data-dir",
      temp.dir,
    ]);
  });
  after(async () => {
    await server?.stop();
    fs.rmSync(script, { force: true });
    temp.cleanup();
  });

  it("runs with the two exported variables the README sets, and prints the agent's answer", async () => {
    const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8");
    const block = readme.match(
      /```ts\n(import \{ Client \} from "@langchain\/langgraph-sdk";[\s\S]*?)```/,
    )?.[1];
    assert.ok(block, "the README has the SDK example");
    fs.writeFileSync(script, block);
    const child = spawn(process.execPath, [path.join(repoRoot, "node_modules/tsx/dist/cli.mjs"), script], {
      cwd: repoRoot,
      // berth dev has no key: any value is accepted, as the README's variable is always set.
      env: { ...process.env, BERTH_AGENT_URL: server.url, BERTH_API_KEY: "unused-by-berth-dev" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    const code = await new Promise((resolve) => child.once("exit", resolve));
    assert.equal(code, 0, out);
    assert.match(out, /Lisbon/);
  });
});
