// The CLI installs outside the repository (issue 13): `npm install -g <repo>/packages/cli` into a
// fresh prefix, then `berth` runs from any directory.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { after, describe, it } from "node:test";
import { makeTempDir, repoRoot } from "@berth-platform/testkit";

describe("npm install -g from the repository path", () => {
  const temp = makeTempDir();
  after(() => temp.cleanup());

  it("puts a working berth on the prefix's PATH", () => {
    const prefix = path.join(temp.dir, "prefix");
    const install = spawnSync(
      "npm",
      [
        "install",
        "-g",
        "--prefix",
        prefix,
        "--offline",
        "--no-audit",
        "--no-fund",
        path.join(repoRoot, "packages/cli"),
      ],
      { encoding: "utf8", cwd: temp.dir },
    );
    assert.equal(install.status, 0, install.stderr);
    const berth = path.join(prefix, "bin", "berth");
    const help = spawnSync(berth, ["--help"], { encoding: "utf8", cwd: temp.dir });
    assert.equal(help.status, 0, help.stderr);
    for (const command of ["up", "dev", "deploy", "keys", "workspaces", "deployments", "logs", "status"]) {
      assert.match(help.stdout, new RegExp(`\\n  ${command}\\b`), `${command} is listed`);
    }
    const check = spawnSync(
      berth,
      ["dev", "--check", "--config", path.join(repoRoot, "examples/react-agent/graph.json")],
      { encoding: "utf8", cwd: temp.dir },
    );
    assert.equal(check.status, 0, check.stderr);
    assert.match(check.stdout, /graph agent loads/);
  });
});
