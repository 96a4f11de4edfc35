// `berth build`: writes the agent server image's Dockerfile. No container engine runs here, so the
// image build itself is not exercised; the Dockerfile text is (see packages/listener golden files).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { makeTempDir, repoRoot } from "@berth-platform/testkit";

const bin = path.join(repoRoot, "packages/cli/bin/berth.js");

function berth(args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", timeout: 60_000 });
  return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

describe("berth build", () => {
  const temp = makeTempDir();
  after(() => temp.cleanup());

  it("writes a Dockerfile serving the project's config on 0.0.0.0:8000", () => {
    fs.writeFileSync(
      path.join(temp.dir, "langgraph.json"),
      JSON.stringify({ graphs: { a: "./a.js:graph" } }),
    );
    const run = berth(["build", temp.dir, "--tag", "example.com/agent:1"]);
    assert.equal(run.code, 0, run.out);
    const text = fs.readFileSync(path.join(temp.dir, "Dockerfile"), "utf8");
    assert.match(text, /^FROM node:20-bookworm-slim$/m);
    assert.match(text, /"--config", "langgraph\.json", "--host", "0\.0\.0\.0", "--port", "8000"/);
    assert.match(run.out, /Wrote .*Dockerfile/);
  });

  it("refuses a directory without a graph configuration, and requires --tag", () => {
    const empty = path.join(temp.dir, "empty");
    fs.mkdirSync(empty);
    const run = berth(["build", empty, "--tag", "x:1"]);
    assert.equal(run.code, 1);
    assert.match(run.out, /No graph configuration/);
    assert.equal(fs.existsSync(path.join(empty, "Dockerfile")), false);
    assert.notEqual(berth(["build", temp.dir]).code, 0);
  });
});
