// repo_url cannot reach internal addresses (issue 11, item 5): refused when given as a literal,
// refused at fetch time when a name resolves to one or a redirect leads to one (the internal
// server never sees a request); a git host the operator configures (BERTH_GIT_HOSTS) still works.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import dns from "node:dns/promises";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempDir } from "@berth-platform/testkit";
import { ControlPlaneUnderTest, LINK_INSTALL, RUNTIME_PROJECT } from "./control-plane-helpers.js";
import { type GitHttpServer, startGitHttpServer } from "./git-http-server.js";

const repos = makeTempDir("berth-ssrf-repos-");
let trusted: GitHttpServer;
let internal: GitHttpServer;
let plane: ControlPlaneUnderTest;

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", args, {
    cwd,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@e",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@e",
    },
  });
}

async function createRepoDeployment(name: string, repoUrl: string) {
  return plane.api("POST", "/v2/deployments", {
    name,
    source: "repo_host",
    source_config: { repo_url: repoUrl, install_command: LINK_INSTALL },
    source_revision_config: { repo_ref: "main", graph_config_path: "graph.json" },
    secrets: [],
  });
}

describe("repo_url SSRF (issue 11 item 5)", () => {
  before(async () => {
    const work = path.join(repos.dir, "work");
    fs.cpSync(RUNTIME_PROJECT, work, { recursive: true });
    git(work, "init", "-q", "--initial-branch=main");
    git(work, "add", ".");
    git(work, "commit", "-qm", "agent");
    git(repos.dir, "clone", "-q", "--bare", work, "repo.git");
    // A repository whose graph.json links to a file of the control plane's (read as root, a JSON
    // error would quote it into the build log).
    const evil = path.join(repos.dir, "evil-work");
    fs.mkdirSync(evil);
    fs.symlinkSync("/etc/shadow", path.join(evil, "graph.json"));
    git(evil, "init", "-q", "--initial-branch=main");
    git(evil, "add", ".");
    git(evil, "commit", "-qm", "evil");
    git(repos.dir, "clone", "-q", "--bare", evil, "evil.git");
    internal = await startGitHttpServer(repos.dir);
    trusted = await startGitHttpServer(repos.dir, {
      "/moved.git": `http://${os.hostname()}:${internal.port}/repo.git`,
    });
    plane = new ControlPlaneUnderTest("ssrf-key-0123456789abcdef", ["--no-example"], {
      BERTH_GIT_HOSTS: `internal=http://127.0.0.1:${trusted.port}`,
    });
    await plane.start();
  });
  after(async () => {
    await plane.stop();
    plane.cleanup();
    await trusted.close();
    await internal.close();
    repos.cleanup();
  });

  it("refuses loopback, private, link-local and metadata literals at validation", async () => {
    for (const url of [
      `http://127.0.0.1:${internal.port}/repo.git`,
      `http://localhost:${internal.port}/repo.git`,
      `http://[::ffff:127.0.0.1]:${internal.port}/repo.git`,
      `http://[::1]:${internal.port}/repo.git`,
      "http://169.254.169.254/latest/meta-data",
      "http://10.0.0.8/org/repo.git",
      "http://[64:ff9b::7f00:1]/repo.git",
      "http://[2002:7f00:1::]/repo.git",
      "http://0x7f000001/repo.git",
      "http://2130706433/repo.git",
    ]) {
      const res = await createRepoDeployment(`lit-${Math.random().toString(36).slice(2, 8)}`, url);
      assert.equal(res.status, 400, `${url}: ${JSON.stringify(res.json)}`);
      assert.match(res.json.detail, /private or loopback|this machine/);
    }
    assert.equal(internal.hits, 0);
  });

  it("refuses at fetch time a name that resolves to an internal address; the server sees nothing", async (t) => {
    const name = os.hostname();
    const resolved = await dns.lookup(name).catch(() => null);
    if (!resolved || !/^(127\.|::1$)/.test(resolved.address)) {
      t.skip(`${name} does not resolve to a loopback address here`);
      return;
    }
    const res = await createRepoDeployment("by-name", `http://${name}:${internal.port}/repo.git`);
    assert.equal(res.status, 201, JSON.stringify(res.json));
    const revision = await plane.waitFor(res.json.id, res.json.latest_revision_id, ["BUILD_FAILED"]);
    assert.equal(revision.status, "BUILD_FAILED");
    assert.match(
      await plane.logText(res.json.id, res.json.latest_revision_id, "build"),
      /private or loopback/,
    );
    assert.equal(internal.hits, 0, "no request reached the internal server");
  });

  it("a configured git host is trusted, but its redirect to an internal address is refused", async () => {
    const moved = await createRepoDeployment("moved", `http://127.0.0.1:${trusted.port}/moved.git`);
    assert.equal(moved.status, 201, JSON.stringify(moved.json));
    await plane.waitFor(moved.json.id, moved.json.latest_revision_id, ["BUILD_FAILED"]);
    assert.match(
      await plane.logText(moved.json.id, moved.json.latest_revision_id, "build"),
      /private or loopback/,
    );
    assert.equal(internal.hits, 0, "the redirect target never saw a request");

    const ok = await createRepoDeployment("trusted", `http://127.0.0.1:${trusted.port}/repo.git`);
    assert.equal(ok.status, 201, JSON.stringify(ok.json));
    await plane.waitFor(ok.json.id, ok.json.latest_revision_id, ["DEPLOYED"]);
    const run = await plane.api("POST", `/agents/${ok.json.id}/runs/wait`, {
      assistant_id: "echo",
      input: { text: "git" },
    });
    assert.equal(run.json.reply, "hello, git");
  });

  it("a cloned graph.json that links outside the source is refused, never read", async () => {
    const res = await createRepoDeployment("evil-link", `http://127.0.0.1:${trusted.port}/evil.git`);
    assert.equal(res.status, 201, JSON.stringify(res.json));
    await plane.waitFor(res.json.id, res.json.latest_revision_id, ["BUILD_FAILED"]);
    const logs = await plane.logText(res.json.id, res.json.latest_revision_id, "build");
    assert.match(logs, /graph configuration graph.json is not in the source/);
    assert.doesNotMatch(logs, /root:|not valid JSON/);
  });
});
