// The npm packages (issue 28): `npm pack` of each @berth-platform package gives tarballs that
// `npm install -g` puts into a clean prefix (third-party dependencies from the registry or npm's
// cache), and the installed `berth` runs from outside the repository: --version, --help, and
// `berth up` answering /ok with its bundled template shipped inside the package.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { makeTempDir, repoRoot, spawnBerth } from "@berth-platform/testkit";

/** The CLI and every package it needs, in the order the README packs them. */
const PACKAGES = [
  "server-kit",
  "schemas",
  "agent-server",
  "dashboard",
  "tracing",
  "control-plane",
  "listener",
  "cli",
];

/**
 * better-sqlite3's install script takes a prebuilt binary when it finds one and compiles for
 * minutes otherwise (no GitHub here). The test offers the binary this checkout already built, the
 * way prebuild-install would have downloaded it: the install script still runs.
 */
function offerSqlitePrebuild(dir: string): Record<string, string> {
  const { version } = JSON.parse(
    fs.readFileSync(path.join(repoRoot, "node_modules/better-sqlite3/package.json"), "utf8"),
  ) as { version: string };
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const tar = spawnSync(
    "tar",
    [
      "-czf",
      path.join(dir, name),
      "-C",
      path.join(repoRoot, "node_modules/better-sqlite3"),
      "build/Release/better_sqlite3.node",
    ],
    { encoding: "utf8" },
  );
  assert.equal(tar.status, 0, tar.stderr);
  return { npm_config_better_sqlite3_local_prebuilds: dir };
}

describe("npm pack tarballs installed with npm install -g into a clean prefix", () => {
  const temp = makeTempDir();
  after(() => temp.cleanup());

  it("installs berth, which prints its version and help and starts a control plane", async () => {
    const tarballs = path.join(temp.dir, "tarballs");
    const prebuilds = path.join(temp.dir, "prebuilds");
    fs.mkdirSync(tarballs);
    fs.mkdirSync(prebuilds);
    for (const name of PACKAGES) {
      const pack = spawnSync("npm", ["pack", "--pack-destination", tarballs, "--silent"], {
        cwd: path.join(repoRoot, "packages", name),
        encoding: "utf8",
      });
      assert.equal(pack.status, 0, pack.stderr);
      assert.equal(pack.stdout.trim().split("\n").pop(), `berth-platform-${name}-0.1.0.tgz`);
    }
    assert.equal(
      fs.existsSync(path.join(repoRoot, "packages/control-plane/templates")),
      false,
      "postpack cleaned up",
    );

    const prefix = path.join(temp.dir, "prefix");
    const files = fs.readdirSync(tarballs).map((f) => path.join(tarballs, f));
    const install = spawnSync(
      "npm",
      ["install", "-g", "--prefix", prefix, "--prefer-offline", "--no-audit", "--no-fund", ...files],
      {
        // A directory outside the repository: nothing of the workspace is in reach.
        cwd: temp.dir,
        encoding: "utf8",
        env: { ...process.env, ...offerSqlitePrebuild(prebuilds) },
      },
    );
    assert.equal(install.status, 0, install.stderr);
    const installed = path.join(prefix, "lib/node_modules/@berth-platform");
    assert.ok(
      !fs.lstatSync(path.join(installed, "cli")).isSymbolicLink(),
      "a copy, not a link to the checkout",
    );
    assert.ok(
      fs.existsSync(path.join(installed, "control-plane/templates/react-agent/graph.json")),
      "the bundled template ships in the package",
    );

    const berth = path.join(prefix, "bin", "berth");
    const version = spawnSync(berth, ["--version"], { encoding: "utf8", cwd: temp.dir });
    assert.equal(version.status, 0, version.stderr);
    assert.equal(version.stdout.trim(), "0.1.0");
    const help = spawnSync(berth, ["--help"], { encoding: "utf8", cwd: temp.dir });
    assert.equal(help.status, 0, help.stderr);
    for (const command of ["up", "dev", "deploy", "profile", "keys", "deployments", "logs"]) {
      assert.match(help.stdout, new RegExp(`\\n  ${command}\\b`), `${command} is listed`);
    }

    const key = "pack-install-admin-key-0123456789";
    const server = await spawnBerth(
      ["up", "--port", "0", "--data-dir", path.join(temp.dir, "cp"), "--api-key", key, "--no-example"],
      {
        bin: path.join(installed, "cli/bin/berth.js"),
        cwd: temp.dir,
        env: { HOME: temp.dir, BERTH_CONFIG_DIR: "" },
        timeoutMs: 60_000,
      },
    );
    try {
      const ok = await fetch(`${server.url}/ok`);
      assert.equal(ok.status, 200);
      const templates = await fetch(`${server.url}/v2/templates`, { headers: { "X-Api-Key": key } });
      assert.equal(templates.status, 200);
      const body = (await templates.json()) as { id: string; graphs?: string[] }[] | { resources: unknown };
      assert.match(JSON.stringify(body), /"react-agent"/, JSON.stringify(body));
    } finally {
      await server.stop();
    }
  });
});
