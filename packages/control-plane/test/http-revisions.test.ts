// Revisions over HTTP: list/get/create/redeploy/interrupt, and statuses that move only with real work.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { externalBody, repoBody, usePlane, waitFor } from "./helpers.js";

const plane = usePlane();
const call = (...args: Parameters<ReturnType<typeof plane>["call"]>) => plane().call(...args);
const create = async (body: Record<string, unknown>) => {
  const res = await call({ method: "POST", url: "/v2/deployments", payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string; latest_revision_id: string };
};
const revision = async (d: string, r: string) =>
  (await call({ method: "GET", url: `/v2/deployments/${d}/revisions/${r}` })).json();
const statusOf = (d: string, r: string) => async () => (await revision(d, r)).status as string;

describe("revision progress", () => {
  it("an image revision stops at AWAITING_DEPLOY (no runtime yet), never DEPLOYED", async () => {
    const d = await create(externalBody("image-rev"));
    await waitFor(statusOf(d.id, d.latest_revision_id), (s) => s === "AWAITING_DEPLOY");
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await statusOf(d.id, d.latest_revision_id)(), "AWAITING_DEPLOY");
    const dep = (await call({ method: "GET", url: `/v2/deployments/${d.id}` })).json();
    assert.equal(dep.active_revision_id, null);
  });

  it("a source revision stops at AWAITING_BUILD (no builder yet)", async () => {
    const d = await create(repoBody("source-rev"));
    await waitFor(statusOf(d.id, d.latest_revision_id), (s) => s === "AWAITING_BUILD");
  });

  it("a revision with nothing to build or deploy waits in CREATING", async () => {
    const d = await create({
      name: "empty-rev",
      source: "internal_docker",
      source_config: { deployment_type: "dev" },
      source_revision_config: {},
      secrets: [],
    });
    await waitFor(
      async () => (await call({ method: "GET", url: `/v2/deployments/${d.id}` })).json().status,
      (s) => s === "READY",
    );
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(await statusOf(d.id, d.latest_revision_id)(), "CREATING");
  });

  it("a newer revision supersedes waiting ones (SKIPPED); the list is newest first and filterable", async () => {
    const d = await create(externalBody("supersede"));
    await waitFor(statusOf(d.id, d.latest_revision_id), (s) => s === "AWAITING_DEPLOY");
    const patched = await call({
      method: "PATCH",
      url: `/v2/deployments/${d.id}`,
      payload: { source_revision_config: { image_uri: "img:2" } },
    });
    const newest = patched.json().latest_revision_id as string;
    assert.equal(await statusOf(d.id, d.latest_revision_id)(), "SKIPPED");
    const list = (await call({ method: "GET", url: `/v2/deployments/${d.id}/revisions` })).json();
    assert.deepEqual(
      list.resources.map((r: { id: string }) => r.id),
      [newest, d.latest_revision_id],
    );
    assert.equal(list.offset, 2);
    const skipped = (
      await call({ method: "GET", url: `/v2/deployments/${d.id}/revisions?status=SKIPPED,DEPLOYED` })
    ).json();
    assert.deepEqual(
      skipped.resources.map((r: { id: string }) => r.id),
      [d.latest_revision_id],
    );
    const limited = (await call({ method: "GET", url: `/v2/deployments/${d.id}/revisions?limit=1` })).json();
    assert.equal(limited.resources[0].id, newest);
    assert.equal(limited.offset, 1);
  });
});

describe("revision endpoints", () => {
  it("POST …/revisions always creates one and returns the Revision (201)", async () => {
    const d = await create(externalBody("post-rev"));
    const empty = await call({ method: "POST", url: `/v2/deployments/${d.id}/revisions` });
    assert.equal(empty.statusCode, 201, empty.body);
    assert.equal(empty.json().status, "CREATING");
    assert.equal(empty.json().source_revision_config.image_uri, "registry.example/agent@sha256:abc");
    const withBody = await call({
      method: "POST",
      url: `/v2/deployments/${d.id}/revisions`,
      payload: {
        source_revision_config: { image_uri: "img:3" },
        source_config: { resource_spec: { cpu: 2 } },
        tracked_packages: ["a:1"],
      },
    });
    assert.equal(withBody.statusCode, 201);
    assert.equal(withBody.json().source_revision_config.image_uri, "img:3");
    assert.deepEqual(withBody.json().source_revision_config.tracked_packages, ["a:1"]);
    const dep = (await call({ method: "GET", url: `/v2/deployments/${d.id}` })).json();
    assert.equal(dep.latest_revision_id, withBody.json().id);
    assert.equal(dep.source_config.resource_spec.cpu, 2);
    assert.equal(dep.source_config.resource_spec.cpu_limit, null, "derived (2 × cpu where it is used)");
    const bad = await call({
      method: "POST",
      url: `/v2/deployments/${d.id}/revisions`,
      payload: { source_revision_config: { repo_ref: "main" } },
    });
    assert.equal(bad.statusCode, 400);
  });

  it("redeploy clones a revision into a new latest one and returns the Deployment", async () => {
    const d = await create(externalBody("redeploy", { secrets: [{ name: "TOKEN", value: "v1" }] }));
    await call({
      method: "PATCH",
      url: `/v2/deployments/${d.id}`,
      payload: { source_revision_config: { image_uri: "img:2" }, secrets: [{ name: "TOKEN", value: "v2" }] },
    });
    const res = await call({
      method: "POST",
      url: `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}/redeploy`,
    });
    assert.equal(res.statusCode, 200, res.body);
    const dep = res.json();
    assert.equal(dep.id, d.id);
    assert.notEqual(dep.latest_revision_id, d.latest_revision_id);
    assert.equal(dep.source_revision_config.image_uri, "registry.example/agent@sha256:abc");
    const revs = await plane().plane.storage.revisions.list(dep.tenant_id, d.id, { limit: 1, offset: 0 });
    assert.deepEqual(
      revs[0]?.secrets,
      [{ name: "TOKEN", value: "v1" }],
      "the clone carries that revision's secrets",
    );
  });

  it("interrupt: a waiting revision becomes INTERRUPTED; a finished one is a 400", async () => {
    const d = await create(externalBody("interrupt"));
    const res = await call({
      method: "POST",
      url: `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}/interrupt`,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().status, "INTERRUPTED");
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(
      await statusOf(d.id, d.latest_revision_id)(),
      "INTERRUPTED",
      "the provisioner does not move it on",
    );
    const again = await call({
      method: "POST",
      url: `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}/interrupt`,
    });
    assert.equal(again.statusCode, 400);
  });

  it("404 for unknown revisions or deployments; 422 for malformed ids", async () => {
    const d = await create(externalBody("rev-404"));
    const other = await create(externalBody("rev-404-other"));
    const none = "00000000-0000-4000-8000-000000000001";
    for (const url of [
      `/v2/deployments/${d.id}/revisions/${none}`,
      `/v2/deployments/${none}/revisions/${d.latest_revision_id}`,
      `/v2/deployments/${d.id}/revisions/${other.latest_revision_id}`,
      `/v2/deployments/${none}/revisions`,
    ]) {
      assert.equal((await call({ method: "GET", url })).statusCode, 404, url);
    }
    for (const action of ["redeploy", "interrupt"]) {
      assert.equal(
        (await call({ method: "POST", url: `/v2/deployments/${d.id}/revisions/${none}/${action}` }))
          .statusCode,
        404,
      );
    }
    const bad = await call({ method: "GET", url: `/v2/deployments/${d.id}/revisions/xyz` });
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(bad.json().detail[0].loc, ["path", "revision_id"]);
    assert.equal(
      (await call({ method: "GET", url: `/v2/deployments/${d.id}/revisions?limit=500` })).statusCode,
      422,
    );
  });
});

describe("concurrency", () => {
  it("parallel PATCHes each make one revision; the last one is latest and the only one waiting", async () => {
    const d = await create(externalBody("parallel"));
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call({
          method: "PATCH",
          url: `/v2/deployments/${d.id}`,
          payload: { source_revision_config: { image_uri: `img:${i}` } },
        }),
      ),
    );
    assert.ok(results.every((r) => r.statusCode === 200));
    const list = (await call({ method: "GET", url: `/v2/deployments/${d.id}/revisions?limit=100` })).json();
    assert.equal(list.resources.length, 11);
    const dep = (await call({ method: "GET", url: `/v2/deployments/${d.id}` })).json();
    assert.equal(list.resources[0].id, dep.latest_revision_id);
    assert.equal(list.resources[0].source_revision_config.image_uri, dep.source_revision_config.image_uri);
    const waiting = list.resources.filter((r: { status: string }) => r.status !== "SKIPPED");
    assert.deepEqual(
      waiting.map((r: { id: string }) => r.id),
      [dep.latest_revision_id],
    );
  });
});

describe("latest revision statuses in one read (the dashboard's list)", () => {
  it("gives each listed deployment's latest revision, leaves out other workspaces' and unknown ids", async () => {
    const a = await create(externalBody("latest-a"));
    const b = await create(externalBody("latest-b"));
    await waitFor(statusOf(b.id, b.latest_revision_id), (s) => s === "AWAITING_DEPLOY");
    const other = await plane().addTenant();
    const foreign = await plane().raw({
      method: "POST",
      url: "/v2/deployments",
      headers: { "x-api-key": other.key },
      payload: externalBody("latest-foreign"),
    });
    assert.equal(foreign.statusCode, 201, foreign.body);
    const unknown = "00000000-0000-4000-8000-000000000000";
    const ids = [a.id, b.id, foreign.json().id as string, unknown].join(",");
    const res = await call({
      method: "GET",
      url: `/v2/deployments/latest-revision-statuses?deployment_ids=${ids}`,
    });
    assert.equal(res.statusCode, 200, res.body);
    const byDeployment = new Map(
      (res.json().resources as Array<{ deployment_id: string; revision_id: string; status: string }>).map(
        (r) => [r.deployment_id, r],
      ),
    );
    assert.deepEqual([...byDeployment.keys()].sort(), [a.id, b.id].sort());
    assert.equal(byDeployment.get(b.id)?.revision_id, b.latest_revision_id);
    assert.equal(byDeployment.get(b.id)?.status, await statusOf(b.id, b.latest_revision_id)());
  });

  it("refuses a missing, malformed or too long id list with 422", async () => {
    for (const query of [
      "",
      "?deployment_ids=nope",
      `?deployment_ids=${Array(101).fill(crypto.randomUUID()).join(",")}`,
    ]) {
      const res = await call({ method: "GET", url: `/v2/deployments/latest-revision-statuses${query}` });
      assert.equal(res.statusCode, 422, `${query.slice(0, 40)}: ${res.body}`);
    }
  });
});
