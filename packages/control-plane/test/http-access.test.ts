// Workspaces and API keys (issue 13): who may list, create and revoke them, and what keys can do.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { hashApiKey } from "../src/services/auth.js";
import { ADMIN_KEY, externalBody, usePlane } from "./helpers.js";

const plane = usePlane();

interface CreatedKey {
  id: string;
  key: string;
  short_key: string;
  role: string;
  workspace_ids: string[];
  expires_at: string | null;
}

async function createKey(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await plane().call({ method: "POST", url: "/api/v1/api-key", payload: body, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as CreatedKey;
}

describe("API keys", () => {
  it("an admin creates a member key shown once; the list shows its prefix and role, never the key", async () => {
    const created = await createKey({ description: "ci", role: "member" });
    assert.match(created.key, /^berth_/);
    assert.equal(created.short_key, created.key.slice(0, 12));
    assert.equal(created.role, "member");
    const list = await plane().call({ method: "GET", url: "/api/v1/api-key" });
    assert.equal(list.statusCode, 200);
    const listed = (list.json() as Record<string, unknown>[]).find((k) => k.id === created.id);
    assert.ok(listed, "the new key is listed");
    assert.equal(listed.key, undefined);
    assert.equal(listed.description, "ci");
    assert.ok(!list.body.includes(created.key), "the key itself never appears in a list");
  });

  it("a member key uses the deployments API but cannot manage keys or workspaces (403)", async () => {
    const member = await createKey({ role: "member" });
    const headers = { "x-api-key": member.key };
    const deployments = await plane().raw({ method: "GET", url: "/v2/deployments", headers });
    assert.equal(deployments.statusCode, 200);
    for (const [method, url, payload] of [
      ["GET", "/api/v1/api-key", undefined],
      ["POST", "/api/v1/api-key", { role: "admin" }],
      ["POST", "/api/v1/workspaces", { display_name: "x" }],
      ["DELETE", `/api/v1/api-key/${member.id}`, undefined],
    ] as const) {
      const res = await plane().raw({ method, url, headers, ...(payload ? { payload } : {}) });
      assert.equal(res.statusCode, 403, `${method} ${url}: ${res.body}`);
      assert.match((res.json() as { detail: string }).detail, /member role/);
    }
  });

  it("a revoked key stops working at once; revoking a foreign or unknown id is a 404", async () => {
    const member = await createKey({ role: "member" });
    const before = await plane().raw({
      method: "GET",
      url: "/v2/deployments",
      headers: { "x-api-key": member.key },
    });
    assert.equal(before.statusCode, 200);
    const revoke = await plane().call({ method: "DELETE", url: `/api/v1/api-key/${member.id}` });
    assert.equal(revoke.statusCode, 204);
    const afterRevoke = await plane().raw({
      method: "GET",
      url: "/v2/deployments",
      headers: { "x-api-key": member.key },
    });
    assert.equal(afterRevoke.statusCode, 401);
    assert.equal(
      (await plane().call({ method: "DELETE", url: `/api/v1/api-key/${member.id}` })).statusCode,
      404,
    );
    const other = await plane().addTenant();
    const foreign = await plane().raw({
      method: "POST",
      url: "/api/v1/api-key",
      headers: { "x-api-key": other.key },
      payload: { role: "member" },
    });
    assert.equal(foreign.statusCode, 200);
    const foreignId = (foreign.json() as CreatedKey).id;
    assert.equal(
      (await plane().call({ method: "DELETE", url: `/api/v1/api-key/${foreignId}` })).statusCode,
      404,
    );
  });

  it("an expired key is refused with 401 and says why", async () => {
    const created = await createKey({ role: "member", expires_in_days: 1 });
    assert.ok(created.expires_at && Date.parse(created.expires_at) > Date.now() + 86_000_000);
    // Time cannot be moved for the server: store a key whose expiry has passed.
    const key = "berth_expired-key-for-the-test-0123456789";
    const tenants = plane().plane.storage.tenants;
    const [workspace] = await tenants.list();
    assert.ok(workspace);
    await tenants.addKey(hashApiKey(key), [workspace.id], new Date().toISOString(), {
      id: randomUUID(),
      description: "expired",
      short_key: key.slice(0, 12),
      role: "admin",
      expires_at: new Date(Date.now() - 1000).toISOString(),
    });
    const res = await plane().raw({ method: "GET", url: "/v2/deployments", headers: { "x-api-key": key } });
    assert.equal(res.statusCode, 401);
    assert.match((res.json() as { detail: string }).detail, /expired/);
  });

  it("validation: a bad role or expiry is a 422 in {detail:[{loc,msg,type}]}; a foreign workspace is a 404", async () => {
    const bad = await plane().call({ method: "POST", url: "/api/v1/api-key", payload: { role: "owner" } });
    assert.equal(bad.statusCode, 422);
    const detail = (bad.json() as { detail: { loc: string[] }[] }).detail;
    assert.ok(detail[0]?.loc.includes("role"), bad.body);
    const days = await plane().call({
      method: "POST",
      url: "/api/v1/api-key",
      payload: { expires_in_days: 0 },
    });
    assert.equal(days.statusCode, 422);
    const other = await plane().addTenant();
    const foreign = await plane().call({
      method: "POST",
      url: "/api/v1/api-key",
      payload: { workspace_ids: [other.tenantId] },
    });
    assert.equal(foreign.statusCode, 404);
  });
});

describe("workspaces", () => {
  it("an admin creates a workspace; the key then needs X-Tenant-Id, lists both, and keeps them apart", async () => {
    const list0 = await plane().call({ method: "GET", url: "/api/v1/workspaces" });
    assert.equal(list0.statusCode, 200);
    const [first] = list0.json() as { id: string }[];
    assert.ok(first);
    const created = await plane().call({
      method: "POST",
      url: "/api/v1/workspaces",
      payload: { display_name: "staging" },
    });
    assert.equal(created.statusCode, 201, created.body);
    const staging = created.json() as { id: string; display_name: string };
    assert.equal(staging.display_name, "staging");
    const list = await plane().call({ method: "GET", url: "/api/v1/workspaces" });
    assert.deepEqual(
      (list.json() as { id: string }[]).map((w) => w.id).sort(),
      [first.id, staging.id].sort(),
      "listing needs no X-Tenant-Id",
    );
    const ambiguous = await plane().call({ method: "GET", url: "/v2/deployments" });
    assert.equal(ambiguous.statusCode, 403);
    assert.match((ambiguous.json() as { detail: string }).detail, /requires workspace specification/);
    const made = await plane().call({
      method: "POST",
      url: "/v2/deployments",
      headers: { "x-tenant-id": staging.id },
      payload: externalBody("in-staging"),
    });
    assert.equal(made.statusCode, 201, made.body);
    const inFirst = await plane().call({
      method: "GET",
      url: "/v2/deployments",
      headers: { "x-tenant-id": first.id },
    });
    assert.ok(!inFirst.body.includes("in-staging"), "a workspace's deployments stay in it");
    const member = await createKey(
      { role: "member", workspace_ids: [staging.id] },
      { "x-tenant-id": staging.id },
    );
    const memberList = await plane().raw({
      method: "GET",
      url: "/api/v1/workspaces",
      headers: { "x-api-key": member.key },
    });
    assert.deepEqual(
      (memberList.json() as { id: string }[]).map((w) => w.id),
      [staging.id],
    );
  });

  it("an unknown key is a 401 on the workspace routes too", async () => {
    const res = await plane().raw({
      method: "GET",
      url: "/api/v1/workspaces",
      headers: { "x-api-key": "nope" },
    });
    assert.equal(res.statusCode, 401);
  });
});

describe("keys across workspaces (issue 27)", () => {
  it("an admin of one workspace cannot revoke a key that reaches others, and sees only its own workspace ids", async () => {
    const [home] = (await plane().call({ method: "GET", url: "/api/v1/workspaces" })).json() as {
      id: string;
    }[];
    assert.ok(home);
    const made = await plane().call({
      method: "POST",
      url: "/api/v1/workspaces",
      headers: { "x-tenant-id": home.id },
      payload: { display_name: "w2" },
    });
    assert.equal(made.statusCode, 201, made.body);
    const w2 = (made.json() as { id: string }).id;
    const inW2 = { "x-tenant-id": w2 };
    // The bootstrap key now reaches both workspaces; W2's own admin reaches W2 only.
    const w2Admin = await createKey({ role: "admin", workspace_ids: [w2] }, inW2);
    const both = await createKey({ role: "member", workspace_ids: [home.id, w2] }, inW2);
    const w2Only = await createKey({ role: "member", workspace_ids: [w2] }, inW2);
    const asW2Admin = { "x-api-key": w2Admin.key };

    const list = await plane().raw({ method: "GET", url: "/api/v1/api-key", headers: asW2Admin });
    assert.equal(list.statusCode, 200, list.body);
    assert.ok(!list.body.includes(home.id), "no workspace id the caller does not reach is listed");
    const listed = (list.json() as CreatedKey[]).find((k) => k.id === both.id);
    assert.deepEqual(listed?.workspace_ids, [w2]);
    const bootstrap = (list.json() as CreatedKey[]).find((k) => k.id === hashApiKey(ADMIN_KEY).slice(0, 32));
    assert.ok(bootstrap, "the bootstrap key reaches W2, so it is listed there");

    for (const id of [bootstrap.id, both.id]) {
      const refused = await plane().raw({
        method: "DELETE",
        url: `/api/v1/api-key/${id}`,
        headers: asW2Admin,
      });
      assert.equal(refused.statusCode, 403, refused.body);
      assert.match((refused.json() as { detail: string }).detail, /also reaches workspaces/);
    }
    for (const key of [ADMIN_KEY, both.key]) {
      const still = await plane().raw({
        method: "GET",
        url: "/v2/deployments",
        headers: { "x-api-key": key, "x-tenant-id": home.id },
      });
      assert.equal(still.statusCode, 200, "a refused revocation changes nothing");
    }
    const own = await plane().raw({
      method: "DELETE",
      url: `/api/v1/api-key/${w2Only.id}`,
      headers: asW2Admin,
    });
    assert.equal(own.statusCode, 204, own.body);
    // A key that reaches all of the key's workspaces may revoke it.
    const byOperator = await plane().call({
      method: "DELETE",
      url: `/api/v1/api-key/${both.id}`,
      headers: inW2,
    });
    assert.equal(byOperator.statusCode, 204, byOperator.body);
  });
});
