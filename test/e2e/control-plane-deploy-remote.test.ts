// The request sequence of `langgraphjs deploy --remote` replayed as real HTTP calls against
// `berth up`: create an internal_source deployment, get an upload URL, PUT the archive, PATCH the
// revision inputs, poll the revision, read its build logs (v1 and v2), list deployments.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import { makeTempDir, type SpawnedServer, spawnBerth } from "@berth-platform/testkit";

const KEY = "remote-deploy-key-0123456789";
const temp = makeTempDir();
let server: SpawnedServer | undefined;

async function api(method: string, url: string, body?: unknown) {
  const res = await fetch(`${server?.url}${url}`, {
    method,
    headers: { "X-Api-Key": KEY, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

describe("langgraphjs deploy --remote, replayed", () => {
  before(async () => {
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

  it("creates, uploads, patches, and shows the revision waiting for a builder in its build logs", async () => {
    const created = await api("POST", "/v2/deployments", {
      name: "remote-agent",
      source: "internal_source",
      source_config: {},
      source_revision_config: {},
      secrets: [{ name: "OPENAI_API_KEY", value: "sk-not-real" }],
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const id = String(created.json.id);

    const minted = await api("POST", `/v2/deployments/${id}/upload-url`);
    assert.equal(minted.status, 200);
    const { upload_url, object_path } = minted.json as { upload_url: string; object_path: string };
    const archive = gzipSync(Buffer.from("a tarball as the CLI packs it"));
    const put = await fetch(upload_url, {
      method: "PUT",
      headers: {
        "Content-Type": "application/gzip",
        "Content-Length": String(archive.length),
        "X-Goog-Content-Length-Range": "0,209715200",
      },
      body: archive,
    });
    assert.equal(put.status, 200, await put.text());

    const patched = await api("PATCH", `/v2/deployments/${id}`, {
      revision_source: "internal_source",
      source_revision_config: { source_tarball_path: object_path, langgraph_config_path: "langgraph.json" },
      source_config: { install_command: "npm ci" },
      secrets: [{ name: "OPENAI_API_KEY", value: "sk-not-real" }],
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.json));
    const revisionId = String(patched.json.latest_revision_id);

    let status = "";
    for (let i = 0; i < 100 && status !== "AWAITING_BUILD"; i += 1) {
      status = String((await api("GET", `/v2/deployments/${id}/revisions/${revisionId}`)).json.status);
      if (status !== "AWAITING_BUILD") await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(status, "AWAITING_BUILD", "the revision waits honestly: no builder runs here yet");

    const v1 = await api("POST", `/v1/projects/${id}/revisions/${revisionId}/build_logs`, {
      order: "asc",
      limit: 50,
    });
    assert.equal(v1.status, 200);
    const logs = v1.json.logs as Array<{ id: string; timestamp: number; message: string }>;
    assert.ok(
      logs.some((l) => /Waiting for a builder/.test(l.message)),
      JSON.stringify(logs),
    );
    assert.equal(typeof logs[0]?.timestamp, "number");
    assert.ok("next_offset" in v1.json);
    const v2 = await api("GET", `/v2/deployments/${id}/revisions/${revisionId}/logs?type=build`);
    assert.deepEqual(v2.json.logs, logs);
    const listed = await api("GET", "/v2/deployments?name_contains=");
    assert.ok((listed.json.resources as Array<{ id: string }>).some((d) => d.id === id));
  });
});
