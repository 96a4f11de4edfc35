// Credentials, workspace selection and the two-tenant isolation matrix.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { before, describe, it } from "node:test";
import type { InjectOptions } from "fastify";
import { hashApiKey } from "../src/services/auth.js";
import { ADMIN_KEY, externalBody, usePlane } from "./helpers.js";

const plane = usePlane();
const raw = (options: InjectOptions) => plane().raw(options);

describe("credentials", () => {
  it("401 without a key, with a wrong key or a malformed Authorization header, on every API route", async () => {
    const id = randomUUID();
    const routes: Array<[string, string]> = [
      ["GET", "/v2/deployments"],
      ["POST", "/v2/deployments"],
      ["GET", `/v2/deployments/${id}`],
      ["PATCH", `/v2/deployments/${id}`],
      ["DELETE", `/v2/deployments/${id}`],
      ["DELETE", `/v2/deployments?deployment_ids=${id}`],
      ["GET", `/v2/deployments/${id}/revisions`],
      ["POST", `/v2/deployments/${id}/revisions`],
      ["GET", `/v2/deployments/${id}/revisions/${id}`],
      ["POST", `/v2/deployments/${id}/revisions/${id}/redeploy`],
      ["POST", `/v2/deployments/${id}/revisions/${id}/interrupt`],
      ["GET", "/v2/tracing-projects"],
      ["GET", `/v2/tracing-projects/${id}`],
    ];
    const variants: Array<Record<string, string>> = [
      {},
      { "x-api-key": "wrong-key-0123456789" },
      { "x-api-key": "" },
      { authorization: `Basic ${ADMIN_KEY}` },
      { authorization: "Bearer" },
    ];
    for (const [method, url] of routes) {
      for (const headers of variants) {
        const res = await raw({ method: method as InjectOptions["method"], url, headers });
        assert.equal(res.statusCode, 401, `${method} ${url} ${JSON.stringify(headers)}`);
        assert.equal(typeof res.json().detail, "string");
      }
    }
  });

  it("X-Api-Key and Authorization: Bearer both work", async () => {
    assert.equal(
      (await raw({ method: "GET", url: "/v2/deployments", headers: { "x-api-key": ADMIN_KEY } })).statusCode,
      200,
    );
    assert.equal(
      (
        await raw({
          method: "GET",
          url: "/v2/deployments",
          headers: { authorization: `Bearer ${ADMIN_KEY}` },
        })
      ).statusCode,
      200,
    );
  });

  it("X-Tenant-Id selects among a key's workspaces; a key of several needs it (403); a foreign one is 403", async () => {
    const a = await plane().addTenant();
    const b = await plane().addTenant();
    const both = `both-${randomUUID()}`;
    await plane().plane.storage.tenants.addKey(
      hashApiKey(both),
      [a.tenantId, b.tenantId],
      new Date().toISOString(),
    );
    const none = await raw({ method: "GET", url: "/v2/deployments", headers: { "x-api-key": both } });
    assert.equal(none.statusCode, 403);
    assert.match(none.json().detail, /requires workspace specification/);
    const created = await raw({
      method: "POST",
      url: "/v2/deployments",
      headers: { "x-api-key": both, "X-Tenant-ID": b.tenantId },
      payload: externalBody("in-b"),
    });
    assert.equal(created.statusCode, 201);
    assert.equal(created.json().tenant_id, b.tenantId);
    const foreign = await raw({
      method: "GET",
      url: "/v2/deployments",
      headers: { "x-api-key": a.key, "x-tenant-id": b.tenantId },
    });
    assert.equal(foreign.statusCode, 403);
    const own = await raw({
      method: "GET",
      url: "/v2/deployments",
      headers: { "x-api-key": a.key, "x-tenant-id": a.tenantId },
    });
    assert.equal(own.statusCode, 200);
  });

  it("only the key's hash is stored", async () => {
    assert.deepEqual(await plane().plane.storage.tenants.tenantsOfKey(ADMIN_KEY), []);
    assert.equal((await plane().plane.storage.tenants.tenantsOfKey(hashApiKey(ADMIN_KEY))).length, 1);
  });
});

describe("two-tenant isolation", () => {
  let a: { tenantId: string; key: string };
  let b: { tenantId: string; key: string };
  let dep: { id: string; latest_revision_id: string; name: string };
  let project: { id: string };
  before(async () => {
    a = await plane().addTenant();
    b = await plane().addTenant();
    const res = await raw({
      method: "POST",
      url: "/v2/deployments",
      headers: { "x-api-key": a.key },
      payload: externalBody("isolated"),
    });
    dep = res.json();
    const projects = await raw({
      method: "GET",
      url: "/v2/tracing-projects?name=isolated",
      headers: { "x-api-key": a.key },
    });
    project = projects.json().resources[0];
  });

  it("every route answers 404 to the other tenant and changes nothing", async () => {
    const r = dep.latest_revision_id;
    const matrix: Array<[string, string, object | undefined]> = [
      ["GET", `/v2/deployments/${dep.id}`, undefined],
      ["PATCH", `/v2/deployments/${dep.id}`, { source_revision_config: { image_uri: "evil:1" } }],
      ["DELETE", `/v2/deployments/${dep.id}`, undefined],
      ["DELETE", `/v2/deployments?deployment_ids=${dep.id}`, undefined],
      ["GET", `/v2/deployments/${dep.id}/revisions`, undefined],
      ["POST", `/v2/deployments/${dep.id}/revisions`, {}],
      ["GET", `/v2/deployments/${dep.id}/revisions/${r}`, undefined],
      ["POST", `/v2/deployments/${dep.id}/revisions/${r}/redeploy`, undefined],
      ["POST", `/v2/deployments/${dep.id}/revisions/${r}/interrupt`, undefined],
      ["GET", `/v2/tracing-projects/${project.id}`, undefined],
      ["POST", `/v2/deployments/${dep.id}/upload-url`, undefined],
      ["POST", `/v2/deployments/${dep.id}/push-token`, undefined],
      ["GET", `/v2/deployments/${dep.id}/revisions/${r}/logs?type=build`, undefined],
      ["POST", `/v1/projects/${dep.id}/revisions/${r}/build_logs`, {}],
      ["GET", `/agents/${dep.id}/ok`, undefined],
      ["POST", `/agents/${dep.id}/threads`, {}],
    ];
    for (const [method, url, payload] of matrix) {
      const res = await raw({
        method: method as InjectOptions["method"],
        url,
        headers: { "x-api-key": b.key },
        ...(payload ? { payload } : {}),
      });
      assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
    }
    const list = await raw({
      method: "GET",
      url: "/v2/deployments?name_contains=&limit=100",
      headers: { "x-api-key": b.key },
    });
    assert.deepEqual(list.json().resources, []);
    const byId = await raw({
      method: "GET",
      url: `/v2/deployments?deployment_ids=${dep.id}`,
      headers: { "x-api-key": b.key },
    });
    assert.deepEqual(byId.json().resources, []);
    const projects = await raw({
      method: "GET",
      url: "/v2/tracing-projects",
      headers: { "x-api-key": b.key },
    });
    assert.deepEqual(projects.json().resources, []);
    // Untouched for its owner.
    const mine = await raw({
      method: "GET",
      url: `/v2/deployments/${dep.id}`,
      headers: { "x-api-key": a.key },
    });
    assert.equal(mine.statusCode, 200);
    assert.equal(mine.json().latest_revision_id, r);
    assert.equal(mine.json().source_revision_config.image_uri, "registry.example/agent@sha256:abc");
    assert.notEqual(mine.json().status, "AWAITING_DELETE");
    const revs = await raw({
      method: "GET",
      url: `/v2/deployments/${dep.id}/revisions/${r}`,
      headers: { "x-api-key": a.key },
    });
    assert.notEqual(revs.json().status, "INTERRUPTED");
  });

  it("names are per workspace: the other tenant may use the same name", async () => {
    const res = await raw({
      method: "POST",
      url: "/v2/deployments",
      headers: { "x-api-key": b.key },
      payload: externalBody("isolated"),
    });
    assert.equal(res.statusCode, 201);
  });
});
