// Workspace isolation on the local runtime (issue 11, item 1), through the API and below it: an
// agent server answers only the control plane's proxy, and a second workspace's build command
// and graph code cannot read the first one's secrets, data, build or agent.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { closedAncestor } from "@berth-platform/control-plane";
import { packDirectory, repoRoot, spawnBerth } from "@berth-platform/testkit";
import Database from "better-sqlite3";
import { ControlPlaneUnderTest } from "./control-plane-helpers.js";

const PROBE_PROJECT = path.join(repoRoot, "test/fixtures/probe-project");
const SECRET = "alpha-secret-value-4f1c";
/** The control plane stores an API key as its SHA-256. */
const hashApiKey = (key: string) => createHash("sha256").update(key).digest("hex");
const LEAKED = "b-secret-printed-by-its-own-graph-77";
const KEY_B = "isolation-workspace-b-key-0123456789";
const isRoot = process.getuid?.() === 0;

/** Every probe failed (no "ok"): prints what was reached otherwise. */
function assertNothingReached(results: Record<string, string>, where: string): void {
  assert.ok(Object.keys(results).length >= 9, `${where}: probes ran: ${JSON.stringify(results)}`);
  const reached = Object.entries(results).filter(([, outcome]) => outcome === "ok");
  assert.deepEqual(reached, [], `${where} reached another workspace: ${JSON.stringify(results)}`);
}

/**
 * The suite, in one isolation mode: the sandbox (bubblewrap, with workspace users when root), or
 * workspace users alone (root, BERTH_SANDBOX=off).
 */
function isolationSuite(mode: "sandbox" | "users-only"): void {
  const plane = new ControlPlaneUnderTest(
    "isolation-workspace-a-key-0123456789",
    ["--no-example"],
    mode === "users-only" ? { BERTH_SANDBOX: "off" } : {},
  );
  let deploymentA = "";
  let deploymentB = "";
  // biome-ignore lint/suspicious/noExplicitAny: probe targets are free-form JSON
  let targets: any = {};
  /** Adds a second workspace and its API key (what an operator's admin tooling does). */
  function addWorkspaceB(): void {
    const db = new Database(path.join(plane.dataDir, "control-plane.sqlite"));
    try {
      const now = new Date().toISOString();
      db.prepare("INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)").run(
        "6b1c0f5e-0000-4000-8000-00000000000b",
        "workspace-b",
        now,
      );
      db.prepare("INSERT INTO api_keys (key_hash, created_at) VALUES (?, ?)").run(hashApiKey(KEY_B), now);
      db.prepare("INSERT INTO api_key_tenants (key_hash, tenant_id) VALUES (?, ?)").run(
        hashApiKey(KEY_B),
        "6b1c0f5e-0000-4000-8000-00000000000b",
      );
    } finally {
      db.close();
    }
  }

  async function apiB(method: string, url: string, body?: unknown) {
    const res = await fetch(`${plane.url}${url}`, {
      method,
      headers: { "X-Api-Key": KEY_B, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  }

  describe(`local runtime: workspace isolation, ${mode} (issue 11 item 1)`, () => {
    before(async () => {
      // Without the sandbox, workspace users reach their directories through the real path: the
      // operator opens its ancestors for traversal (the control plane warns when they are not).
      if (mode === "users-only") fs.chmodSync(plane.temp.dir, 0o711);
      await plane.start();
      const a = await plane.deploySource("isolated-a", { secrets: [{ name: "GREETING", value: SECRET }] });
      deploymentA = a.id;
      await plane.waitFor(deploymentA, a.latest_revision_id, ["DEPLOYED"]);
      addWorkspaceB();
      const state = plane.runtimeState(deploymentA);
      const root = path.join(plane.dataDir, "deployments", deploymentA);
      const builds = fs.readdirSync(path.join(root, "builds")).filter((n) => !n.startsWith("."));
      targets = {
        files: [
          path.join(plane.dataDir, "secrets.key"),
          path.join(plane.dataDir, "control-plane.sqlite"),
          path.join(root, "runtime.json"),
          path.join(root, "builds", builds[0] ?? "none", "src", "graph.json"),
          path.join(root, "logs", `${a.latest_revision_id}.log`),
        ],
        dirs: [path.join(root, "data"), path.join(root, "builds")],
        ports: [state.port],
        pids: [state.pid],
      };
    });
    after(async () => {
      await plane.stop();
      plane.cleanup();
    });

    it("an agent server refuses requests without the proxy's credential; /ok stays open", async () => {
      const { port } = plane.runtimeState(deploymentA);
      const direct = await fetch(`http://127.0.0.1:${port}/threads/search`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      assert.equal(direct.status, 403);
      const forged = await fetch(`http://127.0.0.1:${port}/runs/wait`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-berth-agent-token": "guess" },
        body: JSON.stringify({ assistant_id: "echo", input: { text: "x" } }),
      });
      assert.equal(forged.status, 403);
      assert.equal((await fetch(`http://127.0.0.1:${port}/ok`)).status, 200);
      // Through the proxy, with the workspace's key, the agent answers (the credential is added there).
      const proxied = await plane.api("POST", `/agents/${deploymentA}/runs/wait`, {
        assistant_id: "echo",
        input: { text: "hi" },
      });
      assert.equal(proxied.status, 200, JSON.stringify(proxied.json));
      assert.equal(proxied.json.reply, `${SECRET}, hi`);
      // A client cannot smuggle a credential of its own through the proxy either: it is replaced.
      const other = await apiB("POST", `/agents/${deploymentA}/runs/wait`, {
        assistant_id: "echo",
        input: {},
      });
      assert.equal(other.status, 404);
    });

    it("through the API, the second workspace gets a 404 for every one of the first one's resources", async () => {
      const a = await plane.get(`/v2/deployments/${deploymentA}`);
      const rev = a.latest_revision_id;
      const base = `/v2/deployments/${deploymentA}`;
      for (const [method, url, body] of [
        ["GET", base],
        ["PATCH", base, { secrets: [{ name: "GREETING", value: "stolen" }] }],
        ["DELETE", base],
        ["GET", `${base}/revisions`],
        ["POST", `${base}/revisions`, {}],
        ["GET", `${base}/revisions/${rev}`],
        ["GET", `${base}/revisions/${rev}/logs?type=deploy`],
        ["POST", `${base}/revisions/${rev}/redeploy`],
        ["POST", `${base}/revisions/${rev}/interrupt`],
        ["POST", `${base}/upload-url`],
        ["POST", `${base}/push-token`],
        ["GET", `/agents/${deploymentA}/ok`],
        ["POST", `/agents/${deploymentA}/threads/search`, {}],
      ] as Array<[string, string, unknown?]>) {
        const res = await apiB(method, url, body);
        assert.equal(res.status, 404, `${method} ${url}: ${res.status} ${JSON.stringify(res.json)}`);
        assert.ok(!JSON.stringify(res.json ?? "").includes(SECRET));
      }
      const listed = await apiB("GET", "/v2/deployments");
      assert.ok(!JSON.stringify(listed.json).includes(deploymentA));
      const deleted = await apiB("DELETE", `/v2/deployments?deployment_ids=${deploymentA}`);
      assert.ok(
        deleted.status === 404 || deleted.status === 204 || deleted.status === 200,
        String(deleted.status),
      );
      // Still there, still serving its own workspace.
      assert.equal((await plane.api("GET", base)).status, 200);
    });

    it("the secrets key, the database and the runtime state are readable by the control plane only", () => {
      for (const file of ["secrets.key", "control-plane.sqlite"]) {
        const mode = fs.statSync(path.join(plane.dataDir, file)).mode & 0o777;
        assert.equal(mode, 0o600, `${file} has mode ${mode.toString(8)}`);
      }
      const state = fs.statSync(path.join(plane.dataDir, "deployments", deploymentA, "runtime.json"));
      assert.equal(state.mode & 0o077, 0, "runtime.json (it holds the agent credential) is private");
    });

    it("a second workspace's build command and graph code reach none of the first one's files, secrets or agent", async (t) => {
      const sandboxed = fs.existsSync("/usr/bin/bwrap");
      if (!isRoot && !sandboxed) {
        t.skip(
          "neither root (workspace users) nor bubblewrap here: the runtime cannot isolate below the API",
        );
        return;
      }
      const created = await apiB("POST", "/v2/deployments", {
        name: "isolated-b",
        source: "internal_source",
        source_config: {
          install_command: `ln -s '${path.join(repoRoot, "node_modules")}' node_modules`,
          build_command: `node probe-build.mjs '${JSON.stringify(targets)}'`,
        },
        source_revision_config: {},
        secrets: [{ name: "LEAK_ME", value: LEAKED }],
      });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      deploymentB = created.json.id;
      const minted = await apiB("POST", `/v2/deployments/${deploymentB}/upload-url`);
      const put = await fetch(minted.json.upload_url, {
        method: "PUT",
        headers: { "Content-Type": "application/gzip" },
        body: packDirectory(PROBE_PROJECT),
      });
      assert.equal(put.status, 200);
      const patched = await apiB("PATCH", `/v2/deployments/${deploymentB}`, {
        source_revision_config: {
          source_tarball_path: minted.json.object_path,
          graph_config_path: "graph.json",
        },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.json));
      const revisionId = patched.json.latest_revision_id;
      let revision: { status: string } = { status: "" };
      for (
        let i = 0;
        i < 900 && !["DEPLOYED", "BUILD_FAILED", "DEPLOY_FAILED"].includes(revision.status);
        i += 1
      ) {
        await new Promise((r) => setTimeout(r, 100));
        revision = (await apiB("GET", `/v2/deployments/${deploymentB}/revisions/${revisionId}`)).json;
      }
      const logs = await apiB(
        "GET",
        `/v2/deployments/${deploymentB}/revisions/${revisionId}/logs?type=build&limit=1000`,
      );
      const lines: string[] = (logs.json.logs ?? []).map((l: { message: string }) => l.message);
      assert.equal(revision.status, "DEPLOYED", lines.join("\n"));
      const probeLine = lines.find((l) => l.startsWith("PROBE "));
      assert.ok(probeLine, `the build printed its probe:\n${lines.join("\n")}`);
      assertNothingReached(JSON.parse(probeLine.slice("PROBE ".length)), "the build command");

      const run = await apiB("POST", `/agents/${deploymentB}/runs/wait`, {
        assistant_id: "probe",
        input: { targets },
      });
      assert.equal(run.status, 200, JSON.stringify(run.json));
      assertNothingReached(run.json.results, "the graph code");
      // The first workspace's secret never appears in the second one's logs.
      assert.ok(!lines.join("\n").includes(SECRET));
    });

    it("secret values are redacted from every log line, whatever printed them (issue 11 item 4)", async () => {
      assert.ok(deploymentB, "the previous test deployed workspace B");
      const run = await apiB("POST", `/agents/${deploymentB}/runs/wait`, { assistant_id: "leak", input: {} });
      assert.equal(run.status, 200, JSON.stringify(run.json));
      const revisionId = (await apiB("GET", `/v2/deployments/${deploymentB}`)).json.latest_revision_id;
      let text = "";
      for (let i = 0; i < 100 && !text.includes("the secret is"); i += 1) {
        await new Promise((r) => setTimeout(r, 100));
        const logs = await apiB(
          "GET",
          `/v2/deployments/${deploymentB}/revisions/${revisionId}/logs?type=deploy&limit=1000`,
        );
        text = (logs.json.logs ?? []).map((l: { message: string }) => l.message).join("\n");
      }
      assert.match(text, /the secret is \[redacted\]/);
      assert.match(text, /failed with \[redacted\]/);
      assert.ok(!text.includes(LEAKED), text);
    });

    it("a secret value with a NUL character is refused with a 4xx and never echoed (issue 11 item 4)", async () => {
      const value = "nul\u0000inside-value-5b2";
      const created = await apiB("POST", "/v2/deployments", {
        name: "nul-secret",
        source: "internal_source",
        source_config: {},
        source_revision_config: {},
        secrets: [{ name: "BAD", value }],
      });
      assert.equal(created.status, 400, JSON.stringify(created.json));
      assert.ok(!JSON.stringify(created.json).includes("inside-value"));
      const patched = await apiB("PATCH", `/v2/deployments/${deploymentB}`, {
        secrets: [{ name: "BAD", value }],
      });
      assert.equal(patched.status, 400, JSON.stringify(patched.json));
      assert.ok(!JSON.stringify(patched.json).includes("inside-value"));
    });

    // Once is enough (it stops the control plane): in the sandbox mode.
    if (mode === "sandbox") {
      it("SIGTERM of the control plane does not wait for a client's open agent stream (issue 11 item 2)", async () => {
        const thread = await plane.api("POST", `/agents/${deploymentA}/threads`, {});
        // A delayed run stays pending for an hour: a join of its stream stays open as long.
        const run = await plane.api("POST", `/agents/${deploymentA}/threads/${thread.json.thread_id}/runs`, {
          assistant_id: "echo",
          input: { text: "later" },
          after_seconds: 3600,
        });
        assert.equal(run.status, 200, JSON.stringify(run.json));
        const stream = await fetch(
          `${plane.url}/agents/${deploymentA}/threads/${thread.json.thread_id}/runs/${run.json.run_id}/stream`,
          { headers: { "x-api-key": plane.key } },
        );
        assert.equal(stream.status, 200);
        const reading = stream.text().catch(() => "");
        const started = Date.now();
        await plane.stop("SIGTERM");
        const seconds = (Date.now() - started) / 1000;
        await reading;
        // 5 s for open responses, then the agent servers' drain (BERTH_DRAIN_SECS=5), then storage.
        assert.ok(seconds < 15, `berth up exited ${seconds.toFixed(1)} s after SIGTERM`);
      });
    }
  });
}

/**
 * Without the sandbox, workspace users run Berth's own agent server program from the checkout; when
 * an ancestor of the checkout is closed to them (root's 0700 home), they cannot. Then
 * BERTH_WORKSPACE_USERS=on refuses to start, naming the directory, and "auto" says loudly that
 * graphs run as the control plane's user: isolation is never silently weaker than asked.
 */
function closedCheckoutSuite(closed: string): void {
  describe("local runtime: workspace users with the checkout closed to them", () => {
    it("BERTH_WORKSPACE_USERS=on refuses to start and names the closed directory; auto warns", async (t) => {
      t.diagnostic(`${closed} is closed to other users: the users-only isolation suite cannot run here`);
      const plane = new ControlPlaneUnderTest("isolation-closed-key-0123456789", ["--no-example"], {
        BERTH_SANDBOX: "off",
        BERTH_WORKSPACE_USERS: "on",
      });
      try {
        fs.chmodSync(plane.temp.dir, 0o711);
        await assert.rejects(plane.start(), (error: Error) => {
          assert.match(error.message, /BERTH_WORKSPACE_USERS=on but workspace users cannot reach/);
          assert.ok(error.message.includes(closed), error.message);
          return true;
        });
        const auto = await spawnBerth(
          ["up", "--port", "0", "--data-dir", plane.dataDir, "--api-key", plane.key, "--no-example"],
          { env: { BERTH_SANDBOX: "off" } },
        );
        try {
          const ok = await fetch(`${auto.url}/ok`);
          assert.equal(ok.status, 200);
          assert.match(auto.output(), /run as the control plane's user/);
        } finally {
          await auto.stop();
        }
      } finally {
        plane.cleanup();
      }
    });
  });
}

const closedCheckout = isRoot ? closedAncestor(repoRoot) : null;
if (fs.existsSync("/usr/bin/bwrap") || isRoot) isolationSuite("sandbox");
if (isRoot && closedCheckout === null) isolationSuite("users-only");
if (isRoot && closedCheckout !== null) closedCheckoutSuite(closedCheckout);
