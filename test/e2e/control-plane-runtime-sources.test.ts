// The local runtime of `berth up` turns each source into a running, answering agent server:
// the example template on first start, uploaded source, a git repository; container sources
// fail clearly; hostile archives are refused; delete stops everything.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { makeTarGz, makeTempDir } from "@berth-platform/testkit";
import { Client } from "@langchain/langgraph-sdk";
import {
  ControlPlaneUnderTest,
  eventually,
  isAlive,
  LINK_INSTALL,
  RUNTIME_PROJECT,
} from "./control-plane-helpers.js";

const gitHosts = makeTempDir("berth-git-hosts-");
const plane = new ControlPlaneUnderTest("runtime-sources-key-0123456789", [], {
  BERTH_GIT_HOSTS: `local=${gitHosts.dir}`,
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@e",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@e",
    },
  }).trim();
}

async function echo(url: string, text: string): Promise<{ reply: string; revision: string }> {
  const client = new Client({ apiUrl: url, apiKey: plane.key });
  const result = (await client.runs.wait(null, "echo", { input: { text } })) as {
    reply: string;
    revision: string;
  };
  return result;
}

describe("berth up: local runtime, sources", () => {
  before(() => plane.start());
  after(async () => {
    await plane.stop();
    plane.cleanup();
    gitHosts.cleanup();
  });

  it("deploys the example agent template on first start; the SDK runs it at custom_url", async () => {
    const templates = await plane.api("GET", "/v2/templates");
    assert.equal(templates.status, 200);
    assert.ok(templates.json.resources.some((t: { id: string }) => t.id === "react-agent"));

    const list = await plane.api("GET", "/v2/deployments?name=example-agent");
    const example = list.json.resources[0];
    assert.equal(example?.source, "internal_template");
    const revision = await plane.waitFor(example.id, example.latest_revision_id, ["DEPLOYED"]);
    assert.equal(revision.status, "DEPLOYED");
    const deployment = (await plane.api("GET", `/v2/deployments/${example.id}`)).json;
    assert.equal(deployment.active_revision_id, revision.id);
    assert.equal(deployment.source_config.custom_url, `${plane.url}/agents/${example.id}`);

    const client = new Client({ apiUrl: deployment.source_config.custom_url, apiKey: plane.key });
    const thread = await client.threads.create();
    const state = (await client.runs.wait(thread.thread_id, "agent", {
      input: { messages: [{ role: "user", content: "What is 6 * 7?" }] },
    })) as { messages: Array<{ content: string }> };
    assert.match(String(state.messages.at(-1)?.content), /42/);

    // The agent URL needs the workspace's key, like every other route.
    const anonymous = await fetch(`${deployment.source_config.custom_url}/assistants/search`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(anonymous.status, 401);
  });

  it("builds and runs uploaded source with its secrets; build logs show the commands", async () => {
    const deployment = await plane.deploySource("uploaded-echo", {
      secrets: [{ name: "GREETING", value: "bonjour" }],
      buildCommand: "echo building-now",
    });
    const revision = await plane.waitFor(deployment.id, deployment.latest_revision_id, ["DEPLOYED"]);
    const build = await plane.logText(deployment.id, revision.id, "build");
    assert.match(build, /\$ ln -s/);
    assert.match(build, /building-now/);
    const answer = await echo(`${plane.url}/agents/${deployment.id}`, "world");
    assert.deepEqual(answer, { text: "world", reply: "bonjour, world", revision: revision.id });
    const deploy = await plane.logText(deployment.id, revision.id, "deploy");
    assert.match(deploy, /healthy/);
  });

  it("clones a git repository branch, records the commit, and serves it", async () => {
    const repo = path.join(gitHosts.dir, "echo-repo");
    fs.cpSync(RUNTIME_PROJECT, repo, { recursive: true });
    git(repo, "init", "-q", "-b", "main");
    git(repo, "add", ".");
    git(repo, "commit", "-q", "-m", "first");
    const sha = git(repo, "rev-parse", "HEAD");

    const created = await plane.api("POST", "/v2/deployments", {
      name: "from-git",
      source: "repo_host",
      source_config: { repo_url: pathToFileURL(repo).href, install_command: LINK_INSTALL },
      source_revision_config: { repo_ref: "main", graph_config_path: "graph.json" },
      secrets: [],
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const revision = await plane.waitFor(created.json.id, created.json.latest_revision_id, ["DEPLOYED"]);
    assert.equal(revision.source_revision_config.repo_commit_sha, sha);
    assert.equal((await echo(`${plane.url}/agents/${created.json.id}`, "git")).reply, "hello, git");

    // A tag (refs/tags/...) of a later commit, from the repository's plain path this time.
    fs.writeFileSync(
      path.join(repo, "src/echo.ts"),
      fs.readFileSync(path.join(repo, "src/echo.ts"), "utf8").replace('"hello"', '"tagged"'),
    );
    git(repo, "commit", "-q", "-am", "second");
    git(repo, "tag", "-a", "v2", "-m", "v2");
    const tagged = git(repo, "rev-parse", "HEAD");
    const byPath = await plane.api("POST", "/v2/deployments", {
      name: "from-git-tag",
      source: "repo_host",
      source_config: { repo_url: repo, install_command: LINK_INSTALL },
      source_revision_config: { repo_ref: "refs/tags/v2", graph_config_path: "graph.json" },
      secrets: [],
    });
    assert.equal(byPath.status, 201, JSON.stringify(byPath.json));
    const tagRevision = await plane.waitFor(byPath.json.id, byPath.json.latest_revision_id, ["DEPLOYED"]);
    assert.equal(tagRevision.source_revision_config.repo_commit_sha, tagged);
    assert.equal((await echo(`${plane.url}/agents/${byPath.json.id}`, "tag")).reply, "tagged, tag");

    // A local repository outside the configured git hosts, or an unknown integration, is refused.
    const outside = await plane.api("POST", "/v2/deployments", {
      name: "outside-hosts",
      source: "repo_host",
      source_config: { repo_url: pathToFileURL(RUNTIME_PROJECT).href },
      source_revision_config: { repo_ref: "main", graph_config_path: "graph.json" },
      secrets: [],
    });
    assert.equal(outside.status, 400);
    assert.match(outside.json.detail, /not inside a configured git host/);
    const unknown = await plane.api("POST", "/v2/deployments", {
      name: "unknown-integration",
      source: "repo_host",
      source_config: { repo_url: "https://git.example.com/a/b.git", integration_id: crypto.randomUUID() },
      source_revision_config: { repo_ref: "main", graph_config_path: "graph.json" },
      secrets: [],
    });
    assert.equal(unknown.status, 400);
    assert.match(unknown.json.detail, /not a configured git host/);
  });

  it("fails container sources with a message that names the runtime that serves them", async () => {
    const created = await plane.api("POST", "/v2/deployments", {
      name: "a-container",
      source: "external_container",
      source_config: {},
      source_revision_config: { image_uri: "docker.io/library/nginx:latest" },
      secrets: [],
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const revision = await plane.waitFor(created.json.id, created.json.latest_revision_id, ["CREATE_FAILED"]);
    assert.match(await plane.logText(created.json.id, revision.id), /container runtime.*Kubernetes/);
  });

  it("refuses a zip-slip archive: BUILD_FAILED, nothing written outside the build", async () => {
    const victim = path.join(plane.temp.dir, "zip-slip-victim.txt");
    const archive = makeTarGz([
      { path: "graph.json", content: '{"graphs":{"echo":"./src/echo.ts:graph"}}' },
      { path: "../../../../../zip-slip-victim.txt", content: "pwned" },
    ]);
    const deployment = await plane.deploySource("zip-slip", { archive });
    const revision = await plane.waitFor(deployment.id, deployment.latest_revision_id, ["BUILD_FAILED"]);
    assert.match(
      await plane.logText(deployment.id, revision.id, "build"),
      /archive was rejected.*contains "\.\."/,
    );
    assert.equal(fs.existsSync(victim), false);
    const found = execFileSync("find", [plane.temp.dir, "-name", "zip-slip-victim.txt"], {
      encoding: "utf8",
    });
    assert.equal(found.trim(), "");
  });

  it("DELETE stops the agent server, removes its files, then the deployment is 404", async () => {
    const deployment = await plane.deploySource("to-delete");
    await plane.waitFor(deployment.id, deployment.latest_revision_id, ["DEPLOYED"]);
    const { pid } = plane.runtimeState(deployment.id);
    assert.ok(isAlive(pid));
    const removed = await plane.api("DELETE", `/v2/deployments/${deployment.id}`);
    assert.equal(removed.status, 204);
    await eventually(
      async () => (await plane.api("GET", `/v2/deployments/${deployment.id}`)).status === 404,
      "the deployment is gone",
    );
    await eventually(() => !isAlive(pid), "the agent server process has exited");
    assert.equal(fs.existsSync(path.join(plane.dataDir, "deployments", deployment.id)), false);
    const proxied = await fetch(`${plane.url}/agents/${deployment.id}/ok`, {
      headers: { "X-Api-Key": plane.key },
    });
    assert.equal(proxied.status, 404);
  });
});
