// The `berth` command as a user runs it: help, clear errors, busy ports.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { after, describe, it } from "node:test";
import { makeTempDir, repoRoot, spawnBerth } from "@berth-platform/testkit";

const bin = path.join(repoRoot, "packages/cli/bin/berth.js");
const example = path.join(repoRoot, "examples/react-agent/graph.json");

function berth(args: string[], cwd = repoRoot) {
  const result = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: "utf8", timeout: 60_000 });
  return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

describe("berth CLI", () => {
  const temp = makeTempDir();
  after(() => temp.cleanup());

  it("--help describes the commands and dev's options", () => {
    const top = berth(["--help"]);
    assert.equal(top.code, 0);
    assert.match(top.out, /dev/);
    const dev = berth(["dev", "--help"]);
    assert.equal(dev.code, 0);
    for (const option of ["--config", "--port", "--host", "--data-dir", "--n-jobs-per-worker"]) {
      assert.match(dev.out, new RegExp(option));
    }
  });

  it("--version and --help spend under 0.3 s of CPU: no command's server is loaded to print them", () => {
    // The process's own CPU time (start-up included), written as it exits; the least of three runs.
    const file = path.join(temp.dir, "cpu.json");
    const probe = `data:text/javascript,${encodeURIComponent(
      `import fs from "node:fs"; process.on("exit", () => fs.writeFileSync(${JSON.stringify(file)}, JSON.stringify(process.cpuUsage())));`,
    )}`;
    for (const args of [["--version"], ["--help"], ["deployments", "--help"]]) {
      const runs = [0, 1, 2].map(() => {
        const result = spawnSync(process.execPath, ["--import", probe, bin, ...args], { timeout: 60_000 });
        assert.equal(result.status, 0, String(result.stderr));
        const { user, system } = JSON.parse(fs.readFileSync(file, "utf8")) as {
          user: number;
          system: number;
        };
        return (user + system) / 1000;
      });
      assert.ok(
        Math.min(...runs) < 300,
        `berth ${args.join(" ")}: ${runs.map((r) => r.toFixed(0)).join(", ")} ms of CPU`,
      );
    }
  });

  it("a missing or invalid graph configuration is a clear error, not a stack trace", () => {
    // One process or the embedded cluster (--workers 2): the reason once, no log lines, no stack.
    for (const workers of ["1", "2"]) {
      const missing = berth(["dev", "--port", "0", "--data-dir", temp.dir, "--workers", workers], temp.dir);
      assert.equal(missing.code, 1);
      assert.match(
        missing.out,
        /^berth: Invalid graph configuration .*graph\.json: the file does not exist/m,
      );
      assert.equal(missing.out.match(/does not exist/g)?.length, 1, missing.out);
      assert.doesNotMatch(missing.out, /"level"|\n\s+at /);
    }
    const bad = path.join(temp.dir, "bad.json");
    fs.writeFileSync(bad, JSON.stringify({ graphs: { a: "./nope.ts:graph" } }));
    // A graph that does not load no longer stops the server (issue 10): --check reports it.
    const broken = berth(["dev", "--check", "--config", bad]);
    assert.equal(broken.code, 1);
    assert.match(broken.out, /ERROR graph a does not load: Cannot load graph "a".*does not exist/);
    // Without --check, a project none of whose graphs load does not start, also as a cluster:
    // every child fails alike, the reason is said once.
    const cluster = berth([
      "dev",
      "--config",
      bad,
      "--port",
      "0",
      "--data-dir",
      path.join(temp.dir, "d2"),
      "--workers",
      "2",
    ]);
    assert.equal(cluster.code, 1);
    assert.match(cluster.out, /^berth: Cannot load graph "a" .*does not exist/m);
    assert.equal(cluster.out.match(/Cannot load graph/g)?.length, 1, cluster.out);
    assert.doesNotMatch(cluster.out, /"level"|\n\s+at /);
  });

  it("--check names a syntax error's file, line and message, and a mistyped path's entry and neighbours", () => {
    const project = path.join(temp.dir, "check-project");
    fs.mkdirSync(path.join(project, "src"), { recursive: true });
    fs.writeFileSync(path.join(project, "src/agent.ts"), "export const graph = 1;\n");
    fs.writeFileSync(path.join(project, "src/broken.ts"), "// line 1\nexport const graph = {;\n");
    fs.writeFileSync(
      path.join(project, "langgraph.json"),
      JSON.stringify({ graphs: { syntax: "./src/broken.ts:graph", typo: "./src/agnet.ts:graph" } }),
    );
    const result = berth(["dev", "--check", "--config", path.join(project, "langgraph.json")]);
    assert.equal(result.code, 1);
    assert.match(
      result.out,
      /^ERROR graph syntax does not load: Cannot load graph "syntax" from \.\/src\/broken\.ts: importing it failed: \.\/src\/broken\.ts:2:23: Expected identifier but found ";" in: export const graph = \{;$/m,
    );
    assert.match(
      result.out,
      /^ERROR graph typo does not load: .*\.\/src\/agnet\.ts does not exist \("graphs\.typo": "\.\/src\/agnet\.ts:graph" in langgraph\.json\); \.\/src holds: agent\.ts, broken\.ts$/m,
    );
    // Every line is an ERROR line: no bundler stack frames, no absolute temporary paths.
    for (const line of result.out.trim().split("\n")) assert.match(line, /^ERROR /);
    assert.doesNotMatch(result.out, new RegExp(project.replaceAll("/", "\\/")));
  });

  it("an explicit busy port is refused with a clear message", async () => {
    const blocker = createServer().listen(0, "127.0.0.1");
    await once(blocker, "listening");
    after(() => blocker.close());
    const port = (blocker.address() as { port: number }).port;
    const result = berth([
      "dev",
      "--config",
      example,
      "--port",
      String(port),
      "--data-dir",
      path.join(temp.dir, "d3"),
    ]);
    assert.equal(result.code, 1);
    assert.match(result.out, new RegExp(`Port ${port} .* already in use`));
  });

  it("the default port moves to the next free one when taken, and says so", async () => {
    // Port 2024 may already be taken on this machine; if it is free, take it here.
    const blocker = createServer();
    await new Promise<void>((resolve) => {
      blocker.once("error", () => resolve());
      blocker.listen(2024, "127.0.0.1", () => resolve());
    });
    after(() => blocker.close());
    const server = await spawnBerth(["dev", "--config", example, "--data-dir", path.join(temp.dir, "d4")]);
    try {
      assert.match(server.output(), /Port 2024 is in use; listening on \d+ instead/);
      assert.notEqual(new URL(server.url).port, "2024");
      const ok = await fetch(`${server.url}/ok`);
      assert.equal(ok.status, 200);
    } finally {
      await server.stop();
    }
  });
});
