// `berth up` as a user and as real clients drive it: bootstrap key, langgraph-deploy and Terraform-style flows.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempDir, repoRoot, type SpawnedServer, spawnBerth } from "@berth-platform/testkit";

const bin = path.join(repoRoot, "packages/cli/bin/berth.js");
const KEY = "e2e-admin-key-0123456789abcdef";
const MARKER = "e2e-secret-marker-5d1c";

async function api(server: SpawnedServer, method: string, url: string, body?: unknown, key = KEY) {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: {
      "X-Api-Key": key,
      Accept: "application/json",
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

async function poll<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("berth up", () => {
  const temp = makeTempDir();
  after(() => temp.cleanup());

  it("--help lists the options", () => {
    const result = spawnSync(process.execPath, [bin, "up", "--help"], { encoding: "utf8" });
    assert.equal(result.status, 0);
    for (const option of ["--port", "--host", "--data-dir", "--api-key", "BERTH_API_KEY"])
      assert.match(result.stdout, new RegExp(option));
    assert.match(spawnSync(process.execPath, [bin, "--help"], { encoding: "utf8" }).stdout, /up/);
  });

  it("prints a generated admin key once, stores only its hash, and the key works", async () => {
    const dataDir = path.join(temp.dir, "bootstrap");
    const first = await spawnBerth(["up", "--port", "0", "--data-dir", dataDir]);
    let key: string;
    try {
      const match = first.output().match(/(berth_[A-Za-z0-9_-]{20,})/);
      assert.ok(match?.[1], first.output());
      key = match[1];
      assert.equal((await api(first, "GET", "/v2/deployments", undefined, key)).status, 200);
      assert.equal((await api(first, "GET", "/v2/deployments", undefined, "berth_wrong")).status, 401);
      const twice = spawnSync(process.execPath, [bin, "up", "--port", "0", "--data-dir", dataDir], {
        encoding: "utf8",
        timeout: 30_000,
      });
      assert.equal(twice.status, 1, "one control plane per data directory");
      assert.match(twice.stderr, /in use by process/);
    } finally {
      await first.stop();
    }
    for (const file of fs.readdirSync(dataDir).filter((f) => f.startsWith("control-plane.sqlite"))) {
      assert.ok(!fs.readFileSync(path.join(dataDir, file)).includes(key), file);
    }
    const second = await spawnBerth(["up", "--port", "0", "--data-dir", dataDir]);
    try {
      assert.ok(!second.output().includes("berth_"), "not printed again");
      assert.equal(
        (await api(second, "GET", "/v2/deployments", undefined, key)).status,
        200,
        "kept across restarts",
      );
    } finally {
      await second.stop();
    }
  });

  it("an explicit busy port is an error; a busy default port moves on", async () => {
    const blocker = createServer().listen(0, "127.0.0.1");
    await once(blocker, "listening");
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = spawnSync(
        process.execPath,
        [bin, "up", "--port", String(port), "--data-dir", path.join(temp.dir, "busy")],
        {
          encoding: "utf8",
          timeout: 30_000,
        },
      );
      assert.equal(result.status, 1);
      assert.match(result.stderr, new RegExp(`Port ${port} .* already in use`));
    } finally {
      blocker.close();
    }
    const defaultBlocker = createServer();
    const blocked = await new Promise<boolean>((resolve) => {
      defaultBlocker.once("error", () => resolve(false)).listen(8124, "127.0.0.1", () => resolve(true));
    });
    try {
      const server = await spawnBerth(["up", "--data-dir", path.join(temp.dir, "moved"), "--api-key", KEY]);
      try {
        assert.match(server.output(), /Port 8124 is in use; listening on \d+ instead/);
        assert.notEqual(new URL(server.url).port, "8124");
      } finally {
        await server.stop();
      }
    } finally {
      if (blocked) defaultBlocker.close();
    }
  });
});

describe("real client sequences against berth up", () => {
  const temp = makeTempDir();
  let server: SpawnedServer;
  before(async () => {
    // The sequences deploy container images, which the local runtime does not run (CREATE_FAILED,
    // covered by the runtime tests): without a runtime their revisions wait at AWAITING_DEPLOY.
    server = await spawnBerth([
      "up",
      "--port",
      "0",
      "--data-dir",
      temp.dir,
      "--api-key",
      KEY,
      "--no-runtime",
    ]);
  });
  after(async () => {
    await server?.stop();
    temp.cleanup();
  });

  it("langgraph deploy (image build): find by name, create, PATCH the image, poll the newest revision", async () => {
    const name = "lg-deploy-agent";
    const found = await api(server, "GET", `/v2/deployments?name_contains=${name}`);
    assert.equal(found.status, 200);
    assert.deepEqual(found.json.resources, []);
    const created = await api(server, "POST", "/v2/deployments", {
      name,
      source: "internal_docker",
      source_config: { deployment_type: "dev" },
      source_revision_config: {},
      secrets: [{ name: "OPENAI_API_KEY", value: MARKER }],
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const id = created.json.id as string;
    assert.ok(created.json.tenant_id);
    const patched = await api(server, "PATCH", `/v2/deployments/${id}`, {
      revision_source: "internal_docker",
      source_revision_config: { image_uri: "registry.example/lg-deploy-agent@sha256:0123" },
      secrets: [
        { name: "OPENAI_API_KEY", value: "********" },
        { name: "EXTRA", value: `${MARKER}-2` },
      ],
      tracked_packages: ["@langchain/langgraph:1.7.3"],
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    const newest = await api(server, "GET", `/v2/deployments/${id}/revisions?limit=1`);
    const rid = newest.json.resources[0].id as string;
    assert.equal(rid, patched.json.latest_revision_id);
    const revision = await poll(
      async () => (await api(server, "GET", `/v2/deployments/${id}/revisions/${rid}`)).json,
      (r) => r.status === "AWAITING_DEPLOY",
    );
    assert.equal(
      revision.status,
      "AWAITING_DEPLOY",
      "waits for the runtime of the next issue; never a fake DEPLOYED",
    );
    assert.deepEqual(revision.source_revision_config.tracked_packages, ["@langchain/langgraph:1.7.3"]);
    const list = await api(server, "GET", "/v2/deployments?name_contains=");
    assert.ok(list.json.resources.some((d: { id: string }) => d.id === id));
    assert.deepEqual(patched.json.secrets, [
      { name: "OPENAI_API_KEY", value: "********" },
      { name: "EXTRA", value: "********" },
    ]);
    for (const body of [created, patched, newest, list])
      assert.ok(!JSON.stringify(body.json).includes(MARKER));
    assert.ok(!server.output().includes(MARKER), "never in the server's output");
    for (const file of fs.readdirSync(temp.dir).filter((f) => f.startsWith("control-plane.sqlite"))) {
      assert.ok(!fs.readFileSync(path.join(temp.dir, file)).includes(MARKER), file);
    }
    const del = await api(server, "DELETE", `/v2/deployments/${id}`);
    assert.equal(del.status, 204);
  });

  it("Terraform-style: create, PATCH display_name, POST a revision, poll, delete and poll until 404", async () => {
    const created = await api(server, "POST", "/v2/deployments", {
      name: "tf-agent",
      source: "external_docker",
      source_config: {
        resource_spec: { min_scale: 1, max_scale: 2, cpu: 1, memory_mb: 1024, redis_cpu: 0.5 },
      },
      source_revision_config: { image_uri: "docker.io/org/agent:1" },
      secrets: [],
      secret_references: [{ name: "POSTGRES_URI_CUSTOM", secret_name: "pg", secret_key: "uri" }],
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const { id, latest_revision_id: first } = created.json;
    assert.ok(id && first);
    // Created in the real service's names, so answered in them (issue 13: no Terraform drift).
    assert.equal(created.json.source, "external_docker");
    assert.equal(created.json.source_config.resource_spec.redis_cpu, 0.5);
    // Derived fields are answered as the real service answers them: null, their default applies.
    assert.equal(created.json.source_config.resource_spec.redis_cpu_limit, null);
    const named = await api(server, "PATCH", `/v2/deployments/${id}`, { display_name: "TF Agent" });
    assert.equal(named.status, 200);
    assert.equal(named.json.latest_revision_id, first);
    // The provider's read-modify-write: the answer's spec with cpu raised, sent back whole.
    const spec = { ...created.json.source_config.resource_spec, cpu: 2 };
    const revision = await api(server, "POST", `/v2/deployments/${id}/revisions`, {
      source_revision_config: { image_uri: "docker.io/org/agent:2" },
      source_config: { resource_spec: spec },
    });
    assert.equal(revision.status, 201, JSON.stringify(revision.json));
    const rid = revision.json.id as string;
    const polled = await poll(
      async () => (await api(server, "GET", `/v2/deployments/${id}/revisions/${rid}`)).json,
      (r) => r.status === "AWAITING_DEPLOY",
    );
    assert.equal(polled.status, "AWAITING_DEPLOY");
    assert.equal(
      (await api(server, "GET", `/v2/deployments/${id}/revisions/${first}`)).json.status,
      "SKIPPED",
    );
    const dep = (await api(server, "GET", `/v2/deployments/${id}`)).json;
    assert.equal(dep.status, "READY");
    assert.equal(dep.display_name, "TF Agent");
    assert.equal(dep.source_config.resource_spec.cpu, 2);
    assert.deepEqual(dep.secret_references, [
      { name: "POSTGRES_URI_CUSTOM", secret_name: "pg", secret_key: "uri" },
    ]);
    assert.equal((await api(server, "DELETE", `/v2/deployments/${id}`)).status, 204);
    const gone = await poll(
      async () => (await api(server, "GET", `/v2/deployments/${id}`)).status,
      (s) => s === 404,
    );
    assert.equal(gone, 404);
    const projects = (await api(server, "GET", "/v2/tracing-projects?name=tf-agent")).json;
    assert.equal(projects.resources.length, 1, "the tracing project is kept");
  });
});
