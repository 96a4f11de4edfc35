// `berth deployments list`, `status`, `revisions`, `logs [-f]`, `delete` through the spawned CLI
// against a spawned `berth up` that really builds and runs (issue 13), text and --json.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { runBerth as berth, jsonLines } from "./cli-helpers.js";
import { ControlPlaneUnderTest } from "./control-plane-helpers.js";

const KEY = "cli-deployments-key-0123456789abcdef";

describe("berth deployments / status / revisions / logs / delete", () => {
  const plane = new ControlPlaneUnderTest(KEY, ["--no-example"]);
  let env: Record<string, string>;
  let deploymentId = "";
  before(async () => {
    await plane.start();
    env = { BERTH_URL: plane.url, BERTH_API_KEY: KEY };
    const res = await fetch(`${plane.url}/v2/deployments`, {
      method: "POST",
      headers: { "X-Api-Key": KEY, "Content-Type": "application/json" },
      body: JSON.stringify({
        name: "cli-agent",
        source: "internal_template",
        source_config: { template_id: "react-agent" },
        source_revision_config: {},
        secrets: [],
      }),
    });
    assert.equal(res.status, 201, await res.clone().text());
    deploymentId = ((await res.json()) as { id: string }).id;
  });
  after(async () => {
    await plane.stop();
    plane.cleanup();
  });

  it("logs -f follows the latest revision until it settles, with levels; then status says DEPLOYED", async () => {
    const logs = await berth(["logs", "cli-agent", "-f"], env);
    assert.equal(logs.status, 0, logs.stderr);
    assert.match(logs.stdout, /build\s+INFO/);
    assert.match(logs.stdout, /deploy\s+INFO\s+.*DEPLOYED/);
    const status = await berth(["status", "cli-agent"], env);
    assert.equal(status.status, 0, status.stderr);
    assert.match(status.stdout, /latest revision: \S+ DEPLOYED/);
    assert.ok(status.stdout.includes(`/agents/${deploymentId}`), status.stdout);
    const json = jsonLines((await berth(["status", deploymentId, "--json"], env)).stdout);
    assert.equal((json[0]?.latest_revision as { status: string } | undefined)?.status, "DEPLOYED");
  });

  it("deployments list and revisions, as a table and as JSON lines", async () => {
    const table = await berth(["deployments", "list"], env);
    assert.equal(table.status, 0, table.stderr);
    assert.match(table.stdout, /^NAME\s+ID\s+SOURCE\s+STATUS\s+URL\s+UPDATED/);
    assert.match(table.stdout, /cli-agent\s+\S+\s+internal_template/);
    const listed = jsonLines(
      (await berth(["deployments", "list", "--json", "--name-contains", "cli"], env)).stdout,
    );
    assert.deepEqual(
      listed.map((d) => d.id),
      [deploymentId],
    );
    const revisions = jsonLines((await berth(["revisions", "cli-agent", "--json"], env)).stdout);
    assert.equal(revisions.length, 1);
    assert.equal(revisions[0]?.status, "DEPLOYED");
    const levels = await berth(["logs", "cli-agent", "--type", "build", "--level", "error", "--json"], env);
    assert.equal(levels.status, 0, levels.stderr);
    assert.deepEqual(jsonLines(levels.stdout), [], "no error lines in a good build");
  });

  it("the control plane's /metrics: revisions by status, build/deploy durations, agent processes, requests", async () => {
    const res = await fetch(`${plane.url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /text\/plain/);
    const text = await res.text();
    assert.match(text, /^berth_cp_revisions\{status="DEPLOYED"\} 1$/m);
    assert.match(text, /^berth_cp_revisions\{status="BUILD_FAILED"\} 0$/m);
    assert.match(text, /^berth_cp_agent_processes 1$/m);
    assert.match(
      text,
      /^berth_cp_revision_step_duration_seconds_count\{step="build",outcome="success"\} 1$/m,
    );
    assert.match(
      text,
      /^berth_cp_revision_step_duration_seconds_count\{step="deploy",outcome="success"\} 1$/m,
    );
    assert.match(
      text,
      /^berth_cp_http_requests_total\{method="POST",route="\/v2\/deployments",status="201"\} 1$/m,
    );
    assert.ok(
      !text.includes("cli-agent") && !text.includes(deploymentId),
      "aggregates only: no names or ids",
    );
  });

  it("an unknown name says so; delete needs --yes without a terminal, then removes the deployment", async () => {
    const unknown = await berth(["status", "nope"], env);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /No deployment named 'nope'/);
    const refused = await berth(["delete", "cli-agent"], env);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /--yes/);
    const deleted = await berth(["delete", "cli-agent", "--yes", "--json"], env);
    assert.equal(deleted.status, 0, deleted.stderr);
    assert.equal(jsonLines(deleted.stdout)[0]?.deleted, true);
    for (let i = 0; i < 100; i += 1) {
      const res = await fetch(`${plane.url}/v2/deployments/${deploymentId}`, {
        headers: { "X-Api-Key": KEY },
      });
      if (res.status === 404) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail("the deployment was not removed");
  });
});
