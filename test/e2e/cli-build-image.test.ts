// `berth build` packs Berth's own packages beside the Dockerfile so the image installs Berth without
// a registry that has it (issue 15). No container engine runs here, so the test carries out the
// Dockerfile's Berth install step by hand (the same npm command, from the npm cache first) in a
// folder outside the repository, then serves a project with its own node_modules through that
// install's `berth serve` and runs its graph with the official SDK.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { makeTempDir, repoRoot, spawnBerth } from "@berth-platform/testkit";
import { Client } from "@langchain/langgraph-sdk";

const npm = (args: string[], cwd: string) =>
  spawnSync("npm", args, { cwd, encoding: "utf8", timeout: 600_000 });

describe("berth build: an image's Berth install is self-contained", () => {
  const temp = makeTempDir();
  after(() => temp.cleanup());

  it("packs every Berth package the CLI needs; installed together they serve a project's graph", async () => {
    const project = path.join(temp.dir, "project");
    fs.cpSync(path.join(repoRoot, "test/fixtures/deploy-project"), project, { recursive: true });
    const build = spawnSync(
      process.execPath,
      [path.join(repoRoot, "packages/cli/bin/berth.js"), "build", project, "--tag", "example.com/agent:1"],
      { encoding: "utf8", timeout: 300_000 },
    );
    assert.equal(build.status, 0, `${build.stdout}${build.stderr}`);
    const packed = fs.readdirSync(path.join(project, ".berth-image")).sort();
    for (const name of [
      "agent-server",
      "cli",
      "control-plane",
      "dashboard",
      "listener",
      "schemas",
      "server-kit",
    ]) {
      assert.ok(
        packed.some((file) => file.startsWith(`berth-platform-${name}-`) && file.endsWith(".tgz")),
        `${name} is packed: ${packed.join(", ")}`,
      );
    }
    const dockerfile = fs.readFileSync(path.join(project, "Dockerfile"), "utf8");
    assert.match(dockerfile, /^COPY \.berth-image\/ \/opt\/berth-packages\/$/m);
    assert.match(dockerfile, /npm install --omit=dev --no-audit --no-fund \/opt\/berth-packages\/\*\.tgz/);

    // The Dockerfile's step, with the packages where `berth build` left them.
    const opt = path.join(temp.dir, "opt-berth");
    fs.mkdirSync(opt);
    assert.equal(npm(["init", "-y"], opt).status, 0);
    const tarballs = packed.map((file) => path.join(project, ".berth-image", file));
    const install = npm(
      ["install", "--prefer-offline", "--omit=dev", "--no-audit", "--no-fund", ...tarballs],
      opt,
    );
    assert.equal(install.status, 0, install.stderr);
    const installProject = npm(["ci", "--prefer-offline", "--no-audit", "--no-fund"], project);
    assert.equal(installProject.status, 0, installProject.stderr);

    const bin = path.join(opt, "node_modules/.bin/berth");
    assert.ok(fs.realpathSync(bin).startsWith(fs.realpathSync(opt)), "berth comes from the image's install");
    const server = await spawnBerth(
      [
        "serve",
        "--config",
        "graph.json",
        "--port",
        "0",
        "--host",
        "127.0.0.1",
        "--data-dir",
        path.join(temp.dir, "data"),
      ],
      { bin, cwd: project, env: { BERTH_LOG_LEVEL: "info" }, timeoutMs: 120_000 },
    );
    try {
      const client = new Client({ apiUrl: server.url });
      const state = (await client.runs.wait(null, "echo", {
        input: { messages: [{ role: "user", content: "from the image" }] },
      })) as { messages: Array<{ content: string }> };
      assert.match(state.messages.at(-1)?.content ?? "", /from the image$/);
    } finally {
      await server.stop();
    }
  });
});
