// The control plane under `/api-host`, where self-hosted LangSmith serves it and where the official
// clients look when `LANGSMITH_ENDPOINT` names a self-hosted install: same routes, same auth, same
// answers as at the root, which keeps working; the agent proxy and the rest stay at the root only.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { externalBody, usePlane } from "./helpers.js";

const plane = usePlane();

describe("/api-host", () => {
  it("create, get and list deployments through /api-host/v2/deployments, as at the root", async () => {
    const created = await plane().call({
      method: "POST",
      url: "/api-host/v2/deployments",
      payload: externalBody("mounted", { source: "external_docker" }),
    });
    assert.equal(created.statusCode, 201, created.body);
    const deployment = created.json<{ id: string; name: string; source: string }>();
    assert.equal(deployment.source, "external_docker", "the create's vocabulary, as at the root");

    const got = await plane().call({ method: "GET", url: `/api-host/v2/deployments/${deployment.id}` });
    assert.equal(got.statusCode, 200, got.body);
    const atRoot = await plane().call({ method: "GET", url: `/v2/deployments/${deployment.id}` });
    assert.equal(atRoot.statusCode, 200);
    assert.deepEqual(got.json(), atRoot.json());

    const listed = await plane().call({
      method: "GET",
      url: "/api-host/v2/deployments?name=mounted&limit=5",
    });
    assert.equal(listed.statusCode, 200, listed.body);
    const page = listed.json<{ resources: Array<{ id: string }>; offset: number }>();
    assert.deepEqual(
      page.resources.map((d) => d.id),
      [deployment.id],
    );
    assert.equal(page.offset, 1);

    const revisions = await plane().call({
      method: "GET",
      url: `/api-host/v2/deployments/${deployment.id}/revisions?limit=1`,
    });
    assert.equal(revisions.statusCode, 200, revisions.body);
  });

  it("asks for the same credentials and gives the same error bodies", async () => {
    const anonymous = await plane().raw({ method: "GET", url: "/api-host/v2/deployments" });
    const anonymousAtRoot = await plane().raw({ method: "GET", url: "/v2/deployments" });
    assert.ok(anonymous.statusCode === 401 || anonymous.statusCode === 403, anonymous.body);
    assert.equal(anonymous.statusCode, anonymousAtRoot.statusCode);
    assert.deepEqual(anonymous.json(), anonymousAtRoot.json());

    const other = await plane().addTenant();
    const mine = await plane().call({
      method: "POST",
      url: "/api-host/v2/deployments",
      payload: externalBody("not-theirs"),
    });
    const foreign = await plane().call({
      method: "GET",
      url: `/api-host/v2/deployments/${mine.json<{ id: string }>().id}`,
      headers: { "x-api-key": other.key },
    });
    assert.equal(foreign.statusCode, 404);

    const badId = await plane().call({ method: "GET", url: "/api-host/v2/deployments/not-a-uuid" });
    assert.equal(badId.statusCode, 422);
    assert.deepEqual(badId.json<{ detail: Array<{ loc: unknown[] }> }>().detail[0]?.loc, [
      "path",
      "deployment_id",
    ]);
  });

  it("the v1 log routes and listeners answer there too", async () => {
    const listeners = await plane().call({ method: "GET", url: "/api-host/v2/listeners?limit=100" });
    assert.equal(listeners.statusCode, 200, listeners.body);
    const created = await plane().call({
      method: "POST",
      url: "/v2/deployments",
      payload: externalBody("logged"),
    });
    const d = created.json<{ id: string; latest_revision_id: string }>();
    const logs = await plane().call({
      method: "POST",
      url: `/api-host/v1/projects/${d.id}/revisions/${d.latest_revision_id}/build_logs`,
      payload: { order: "asc", limit: 10 },
    });
    assert.equal(logs.statusCode, 200, logs.body);
    assert.ok(Array.isArray(logs.json<{ logs: unknown[] }>().logs));
  });

  it("only the versioned API moves: other paths under /api-host are not routes", async () => {
    const created = await plane().call({
      method: "POST",
      url: "/v2/deployments",
      payload: externalBody("proxied"),
    });
    const id = created.json<{ id: string }>().id;
    const proxied = await plane().call({ method: "GET", url: `/agents/${id}/ok` });
    assert.equal(proxied.statusCode, 503, "the agent proxy still answers at the root (no revision deployed)");
    for (const url of [
      `/api-host/agents/${id}/ok`,
      "/api-host/ok",
      "/api-host/v3/deployments",
      "/api-hostv2/x",
    ]) {
      const res = await plane().call({ method: "GET", url });
      assert.equal(res.statusCode, 404, url);
      assert.match(res.json<{ detail: string }>().detail, /^Not found/, url);
    }
    assert.equal((await plane().call({ method: "GET", url: "/ok" })).statusCode, 200);
  });
});
