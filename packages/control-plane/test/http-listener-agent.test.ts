// The listener-facing API (issue 15): a listener authenticates with its own key (shown once), polls
// the desired state of its deployments and reports each revision's rollout; statuses move only on
// those reports, and a listener that stops polling shows as DISCONNECTED.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { addListener, externalBody, usePlane, waitFor } from "./helpers.js";

const plane = usePlane({ BERTH_LISTENER_TIMEOUT_SECS: "1" });

interface ListenerOut {
  id: string;
  status: string;
  last_seen_at: string | null;
  listener_key?: string;
}

interface Desired {
  listener_id: string;
  poll_interval_seconds: number;
  deployments: Array<{
    deployment_id: string;
    name: string;
    namespace: string;
    custom_url: string | null;
    revision: {
      revision_id: string;
      status: string;
      image_uri: string;
      secrets: Array<{ name: string; value: string }>;
      resource_spec: { min_scale: number; max_scale: number; cpu: number };
      database_password: string;
    } | null;
  }>;
}

function createListener(computeId: string, namespaces: string[] = ["agents"]): Promise<ListenerOut> {
  return addListener<ListenerOut>(plane(), computeId, namespaces);
}

/** A request as the listener makes it (its key, no workspace API key). */
function asListener(key: string, method: "GET" | "POST", url: string, payload?: unknown) {
  return plane().raw({
    method,
    url,
    headers: { authorization: `Bearer ${key}` },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

async function desired(listener: ListenerOut): Promise<Desired> {
  const res = await asListener(
    listener.listener_key ?? "",
    "GET",
    `/v2/listeners/${listener.id}/desired-state`,
  );
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Desired>();
}

function report(listener: ListenerOut, d: string, r: string, body: Record<string, unknown>) {
  return asListener(
    listener.listener_key ?? "",
    "POST",
    `/v2/listeners/${listener.id}/deployments/${d}/revisions/${r}/status`,
    body,
  );
}

async function revision(d: string, r: string): Promise<{ status: string }> {
  const res = await plane().call({ method: "GET", url: `/v2/deployments/${d}/revisions/${r}` });
  return res.json<{ status: string }>();
}

async function deployLog(d: string, r: string): Promise<string[]> {
  const res = await plane().call({
    method: "GET",
    url: `/v2/deployments/${d}/revisions/${r}/logs?type=deploy`,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ logs: Array<{ message: string }> }>().logs.map((l) => l.message);
}

describe("listener-facing API", () => {
  it("returns the key once, stores it hashed, rejects other credentials, rotates it", async () => {
    const listener = await createListener("key-cluster");
    assert.match(listener.listener_key ?? "", /^berth_listener_[A-Za-z0-9_-]{32}$/);
    const got = await plane().call({ method: "GET", url: `/v2/listeners/${listener.id}` });
    assert.equal(got.json<ListenerOut>().listener_key, undefined);
    assert.equal(got.json<ListenerOut>().status, "DISCONNECTED");
    const url = `/v2/listeners/${listener.id}/desired-state`;
    assert.equal((await asListener("wrong-key", "GET", url)).statusCode, 401);
    assert.equal(
      (await plane().call({ method: "GET", url })).statusCode,
      401,
      "a workspace API key is not a listener key",
    );
    assert.equal(
      (await asListener(listener.listener_key ?? "", "GET", `/v2/listeners/${randomUUID()}/desired-state`))
        .statusCode,
      401,
    );
    const other = await createListener("key-cluster-2");
    assert.equal(
      (await asListener(other.listener_key ?? "", "GET", url)).statusCode,
      401,
      "another listener's key",
    );
    assert.equal((await asListener(listener.listener_key ?? "", "GET", url)).statusCode, 200);
    const rotated = await plane().call({ method: "POST", url: `/v2/listeners/${listener.id}/key` });
    assert.equal(rotated.statusCode, 200, rotated.body);
    const fresh = rotated.json<ListenerOut>();
    assert.notEqual(fresh.listener_key, listener.listener_key);
    assert.equal((await asListener(listener.listener_key ?? "", "GET", url)).statusCode, 401);
    assert.equal((await asListener(fresh.listener_key ?? "", "GET", url)).statusCode, 200);
    const tenant = await plane().addTenant();
    const foreign = await plane().raw({
      method: "POST",
      url: `/v2/listeners/${listener.id}/key`,
      headers: { "x-api-key": tenant.key },
    });
    assert.equal(foreign.statusCode, 404, "another workspace cannot rotate the key");
    const stored = JSON.stringify(await plane().plane.storage.listeners.byIdWithKey(listener.id));
    assert.ok(!stored.includes(fresh.listener_key ?? "-"), "only the key's hash is stored");
  });

  it("shows CONNECTED while the listener polls and DISCONNECTED once it stops", async () => {
    const listener = await createListener("poll-cluster");
    await desired(listener);
    const status = async () =>
      (await plane().call({ method: "GET", url: `/v2/listeners/${listener.id}` })).json<ListenerOut>();
    const connected = await status();
    assert.equal(connected.status, "CONNECTED");
    assert.ok(connected.last_seen_at);
    await waitFor(status, (l) => l.status === "DISCONNECTED", 5000);
  });

  it("moves revisions only on the listener's reports: DEPLOYING, DEPLOYED, DEPLOY_FAILED; the serving revision stays desired", async () => {
    const listener = await createListener("flow-cluster", ["agents", "staging"]);
    const created = await plane().call({
      method: "POST",
      url: "/v2/deployments",
      payload: externalBody("on-listener", {
        source_config: {
          resource_spec: { min_scale: 1, max_scale: 2 },
          listener_id: listener.id,
          listener_config: { k8s_namespace: "staging" },
        },
        secrets: [{ name: "OPENAI_API_KEY", value: "sk-listener-secret-value" }],
      }),
    });
    assert.equal(created.statusCode, 201, created.body);
    const d = created.json<{ id: string; latest_revision_id: string }>();
    const r1 = d.latest_revision_id;
    await waitFor(
      () => revision(d.id, r1),
      (r) => r.status === "AWAITING_DEPLOY",
    );
    assert.ok((await deployLog(d.id, r1)).some((m) => m.includes(`Waiting for listener ${listener.id}`)));

    const state = await desired(listener);
    assert.equal(state.listener_id, listener.id);
    const mine = state.deployments.find((x) => x.deployment_id === d.id);
    assert.ok(mine, JSON.stringify(state));
    assert.equal(mine.namespace, "staging");
    assert.equal(mine.revision?.revision_id, r1);
    assert.equal(mine.revision?.status, "AWAITING_DEPLOY");
    assert.equal(mine.revision?.image_uri, "registry.example/agent@sha256:abc");
    assert.deepEqual(mine.revision?.secrets, [{ name: "OPENAI_API_KEY", value: "sk-listener-secret-value" }]);
    assert.equal(mine.revision?.resource_spec.max_scale, 2);
    assert.match(mine.revision?.database_password ?? "", /^[A-Za-z0-9_-]{43}$/);
    // Still waiting: nothing moves without the listener's word.
    await plane().plane.provisioner.idle();
    assert.equal((await revision(d.id, r1)).status, "AWAITING_DEPLOY");

    const early = await report(listener, d.id, r1, { status: "DEPLOYED" });
    assert.equal(early.statusCode, 409, early.body);
    assert.equal((await report(listener, d.id, r1, { status: "DEPLOYING" })).statusCode, 200);
    assert.equal(
      (await report(listener, d.id, r1, { status: "DEPLOYING" })).statusCode,
      200,
      "a retried report",
    );
    const other = await createListener("flow-other");
    const stranger = await asListener(
      other.listener_key ?? "",
      "POST",
      `/v2/listeners/${other.id}/deployments/${d.id}/revisions/${r1}/status`,
      { status: "DEPLOYED" },
    );
    assert.equal(stranger.statusCode, 404, "a deployment of another listener");
    const logged = await asListener(
      listener.listener_key ?? "",
      "POST",
      `/v2/listeners/${listener.id}/deployments/${d.id}/revisions/${r1}/logs`,
      { lines: [{ level: "INFO", message: "applied 10 objects; token sk-listener-secret-value" }] },
    );
    assert.equal(logged.statusCode, 204, logged.body);
    const done = await report(listener, d.id, r1, {
      status: "DEPLOYED",
      url: "http://on-listener-api.staging.svc.cluster.local:8000",
    });
    assert.equal(done.statusCode, 200, done.body);
    assert.equal((await revision(d.id, r1)).status, "DEPLOYED");
    const log1 = await deployLog(d.id, r1);
    assert.ok(log1.some((m) => m.startsWith("applied 10 objects")));
    assert.ok(!log1.join("\n").includes("sk-listener-secret-value"), "secret values are redacted");
    const deployed = (await plane().call({ method: "GET", url: `/v2/deployments/${d.id}` })).json<{
      active_revision_id: string;
      source_config: { custom_url: string };
    }>();
    assert.equal(deployed.active_revision_id, r1);
    assert.equal(deployed.source_config.custom_url, "http://on-listener-api.staging.svc.cluster.local:8000");

    // A new revision; its rollout fails, and the serving revision is desired again.
    const patched = await plane().call({
      method: "PATCH",
      url: `/v2/deployments/${d.id}`,
      payload: { source_revision_config: { image_uri: "registry.example/agent:missing" } },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const r2 = patched.json<{ latest_revision_id: string }>().latest_revision_id;
    await waitFor(
      () => revision(d.id, r2),
      (r) => r.status === "AWAITING_DEPLOY",
    );
    assert.equal(
      (await desired(listener)).deployments.find((x) => x.deployment_id === d.id)?.revision?.revision_id,
      r2,
    );
    assert.equal((await report(listener, d.id, r2, { status: "DEPLOYING" })).statusCode, 200);
    const failed = await report(listener, d.id, r2, {
      status: "DEPLOY_FAILED",
      reason: "ImagePullBackOff: not found",
    });
    assert.equal(failed.statusCode, 200, failed.body);
    assert.equal((await revision(d.id, r2)).status, "DEPLOY_FAILED");
    assert.ok((await deployLog(d.id, r2)).some((m) => m.includes("ImagePullBackOff: not found")));
    const after = (await desired(listener)).deployments.find((x) => x.deployment_id === d.id);
    assert.equal(after?.revision?.revision_id, r1);
    assert.equal(after?.revision?.status, "DEPLOYED");
    assert.equal((await report(listener, d.id, r2, { status: "DEPLOYED" })).statusCode, 409);
    const still = (await plane().call({ method: "GET", url: `/v2/deployments/${d.id}` })).json<{
      active_revision_id: string;
    }>();
    assert.equal(still.active_revision_id, r1);

    // Deleted: gone from the desired state (the listener deletes its objects).
    assert.equal((await plane().call({ method: "DELETE", url: `/v2/deployments/${d.id}` })).statusCode, 204);
    const gone = await desired(listener);
    assert.ok(!gone.deployments.some((x) => x.deployment_id === d.id));
  });
});
