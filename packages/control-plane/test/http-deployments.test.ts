// /v2/deployments over HTTP (in process): status codes, bodies, filters, 422/400 shapes, lifecycle.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { externalBody, repoBody, usePlane, waitFor } from "./helpers.js";

const plane = usePlane();
const t = {
  call: (...args: Parameters<ReturnType<typeof plane>["call"]>) => plane().call(...args),
  get plane() {
    return plane().plane;
  },
  get dataDir() {
    return plane().dataDir;
  },
};

const post = (body: unknown) => t.call({ method: "POST", url: "/v2/deployments", payload: body as object });
const get = (id: string) => t.call({ method: "GET", url: `/v2/deployments/${id}` });

describe("POST /v2/deployments", () => {
  it("201 with the deployment in the names it was sent in (real ones here); the first revision is latest", async () => {
    const res = await post({
      name: "created-one",
      source: "github",
      source_config: { repo_url: "https://git.example/o/r", build_on_push: true },
      source_revision_config: { repo_ref: "main", langgraph_config_path: "langgraph.json" },
      secrets: [{ name: "OPENAI_API_KEY", value: "x" }],
    });
    assert.equal(res.statusCode, 201, res.body);
    const d = res.json();
    assert.equal(d.source, "github");
    assert.equal(d.source_revision_config.langgraph_config_path, "langgraph.json");
    assert.equal("graph_config_path" in d.source_revision_config, false);
    assert.equal(d.status, "AWAITING_DATABASE");
    assert.match(d.id, /^[0-9a-f-]{36}$/);
    assert.match(d.tenant_id, /^[0-9a-f-]{36}$/);
    assert.ok(d.latest_revision_id);
    assert.equal(d.active_revision_id, null);
    assert.deepEqual(d.secrets, [{ name: "OPENAI_API_KEY", value: "********" }]);
    assert.deepEqual(d.secret_references, []);
    const rev = await t.call({
      method: "GET",
      url: `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}`,
    });
    assert.equal(rev.statusCode, 200);
  });

  it("422 with FastAPI-shaped locations for schema errors", async () => {
    const res = await post({
      source: "nope",
      source_config: { resource_spec: { cpu: 9 } },
      source_revision_config: {},
      secrets: [{ name: "A" }],
    });
    assert.equal(res.statusCode, 422);
    const detail = res.json().detail as Array<{ loc: unknown[]; msg: string; type: string }>;
    const byLoc = new Map(detail.map((d) => [JSON.stringify(d.loc), d]));
    assert.equal(byLoc.get('["body","name"]')?.type, "missing");
    assert.equal(byLoc.get('["body","source"]')?.type, "enum");
    assert.equal(byLoc.get('["body","source_config","resource_spec","cpu"]')?.type, "less_than_equal");
    assert.equal(byLoc.get('["body","secrets",0,"value"]')?.type, "missing");
    for (const d of detail) assert.equal(typeof d.msg, "string");
  });

  it("secrets is required (422); a missing body is 422; malformed JSON is 422 json_invalid", async () => {
    const noSecrets = await post({
      name: "a",
      source: "internal_source",
      source_config: {},
      source_revision_config: {},
    });
    assert.equal(noSecrets.statusCode, 422);
    assert.deepEqual(noSecrets.json().detail[0].loc, ["body", "secrets"]);
    const empty = await t.call({ method: "POST", url: "/v2/deployments" });
    assert.equal(empty.statusCode, 422);
    assert.deepEqual(empty.json().detail[0].loc, ["body"]);
    const bad = await t.call({
      method: "POST",
      url: "/v2/deployments",
      headers: { "content-type": "application/json" },
      payload: '{"name": ',
    });
    assert.equal(bad.statusCode, 422);
    assert.equal(bad.json().detail[0].type, "json_invalid");
    const proto = await t.call({
      method: "POST",
      url: "/v2/deployments",
      headers: { "content-type": "application/json" },
      payload: '{"__proto__": {"x": 1}}',
    });
    assert.equal(proto.statusCode, 422);
  });

  it("400 {detail: string} for business rules", async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [externalBody("Bad_Name"), /name must start/],
      [
        repoBody("no-path", { source_revision_config: { repo_ref: "main" } }),
        /graph_config_path is required/,
      ],
      [
        externalBody("ext-path", { source_revision_config: { image_uri: "i", graph_config_path: "g.json" } }),
        /does not apply/,
      ],
      [
        repoBody("tag-push", {
          source_config: { repo_url: "https://g/x", build_on_push: true },
          source_revision_config: { repo_ref: "refs/tags/v1", graph_config_path: "g" },
        }),
        /tag/,
      ],
      [
        externalBody("wrong-field", { source_config: { repo_url: "https://g/x" } }),
        /repo_url does not apply/,
      ],
      [externalBody("reserved", { secrets: [{ name: "DATABASE_URI", value: "x" }] }), /reserved/],
      [
        externalBody("listener", { source_config: { listener_id: "11111111-1111-4111-8111-111111111111" } }),
        /listener/,
      ],
      [externalBody("limits", { source_config: { resource_spec: { cpu: 2, cpu_limit: 1 } } }), /cpu_limit/],
    ];
    for (const [body, pattern] of cases) {
      const res = await post(body);
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)} → ${res.body}`);
      assert.match(res.json().detail, pattern);
    }
  });

  it("409 for a name already taken in the workspace", async () => {
    assert.equal((await post(externalBody("taken"))).statusCode, 201);
    const again = await post(externalBody("taken"));
    assert.equal(again.statusCode, 409);
    assert.equal(typeof again.json().detail, "string");
  });

  it("415 for a non-JSON body and 413 for an oversized one", async () => {
    const form = await t.call({
      method: "POST",
      url: "/v2/deployments",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "a=b",
    });
    assert.equal(form.statusCode, 415);
    const huge = await t.call({
      method: "POST",
      url: "/v2/deployments",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ pad: "x".repeat(2 * 1024 * 1024) }),
    });
    assert.equal(huge.statusCode, 413);
  });

  it("the deployment becomes READY once its data directory exists", async () => {
    const d = (await post(externalBody("ready-one"))).json();
    const ready = await waitFor(
      async () => (await get(d.id)).json(),
      (x) => x.status === "READY",
    );
    assert.equal(ready.status, "READY");
    assert.ok(fs.statSync(path.join(t.dataDir, "deployments", d.id)).isDirectory());
  });
});

describe("GET /v2/deployments", () => {
  it("pages newest first with {resources, offset}; filters by name, name_contains, status, ids", async () => {
    const ids: string[] = [];
    for (const name of ["page-a", "page-b", "page-c"]) ids.push((await post(externalBody(name))).json().id);
    const page1 = (
      await t.call({ method: "GET", url: "/v2/deployments?name_contains=page-&limit=2" })
    ).json();
    assert.deepEqual(
      page1.resources.map((d: { name: string }) => d.name),
      ["page-c", "page-b"],
    );
    assert.equal(page1.offset, 2);
    const page2 = (
      await t.call({
        method: "GET",
        url: `/v2/deployments?name_contains=page-&limit=2&offset=${page1.offset}`,
      })
    ).json();
    assert.deepEqual(
      page2.resources.map((d: { name: string }) => d.name),
      ["page-a"],
    );
    assert.equal(page2.offset, 3);
    const exact = (await t.call({ method: "GET", url: "/v2/deployments?name=page-b" })).json();
    assert.deepEqual(
      exact.resources.map((d: { id: string }) => d.id),
      [ids[1]],
    );
    const byIds = (
      await t.call({ method: "GET", url: `/v2/deployments?deployment_ids=${ids[0]},${ids[2]}` })
    ).json();
    assert.equal(byIds.resources.length, 2);
    const all = (await t.call({ method: "GET", url: "/v2/deployments?name_contains=&limit=100" })).json();
    assert.ok(all.resources.length >= 3, "an empty name_contains is no filter");
    const wildcard = (await t.call({ method: "GET", url: "/v2/deployments?name_contains=%25" })).json();
    assert.equal(wildcard.resources.length, 0, "'%' is matched literally");
    await waitFor(
      async () => (await get(ids[0] as string)).json().status,
      (s) => s === "READY",
    );
    const ready = (await t.call({ method: "GET", url: "/v2/deployments?status=READY&limit=100" })).json();
    assert.ok(ready.resources.every((d: { status: string }) => d.status === "READY"));
    assert.ok(ready.resources.some((d: { id: string }) => d.id === ids[0]));
  });

  it("limit must be 1–100 and offset ≥ 0; ids must be uuids (422)", async () => {
    for (const q of ["limit=0", "limit=101", "limit=x", "offset=-1", "deployment_ids=nope"]) {
      const res = await t.call({ method: "GET", url: `/v2/deployments?${q}` });
      assert.equal(res.statusCode, 422, q);
      assert.equal(res.json().detail[0].loc[0], "query");
    }
    const def = (await t.call({ method: "GET", url: "/v2/deployments" })).json();
    assert.ok(def.resources.length <= 20);
  });
});

describe("GET/PATCH/DELETE /v2/deployments/{id}", () => {
  it("404 with the service's detail for an unknown id; 422 for a malformed one", async () => {
    const missing = await get("00000000-0000-4000-8000-000000000000");
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().detail, "Deployment ID 00000000-0000-4000-8000-000000000000 not found.");
    const bad = await get("not-a-uuid");
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(bad.json().detail[0].loc, ["path", "deployment_id"]);
    assert.equal(bad.json().detail[0].type, "uuid_parsing");
  });

  it("PATCH: 200; revision fields make a new latest revision; deployment-only fields do not", async () => {
    const d = (await post(repoBody("patched"))).json();
    const noRev = await t.call({
      method: "PATCH",
      url: `/v2/deployments/${d.id}`,
      payload: { source_config: { build_on_push: true }, display_name: "Patched" },
    });
    assert.equal(noRev.statusCode, 200, noRev.body);
    assert.equal(noRev.json().latest_revision_id, d.latest_revision_id);
    assert.equal(noRev.json().display_name, "Patched");
    const rev = await t.call({
      method: "PATCH",
      url: `/v2/deployments/${d.id}`,
      payload: { source_revision_config: { repo_ref: "dev", langgraph_config_path: "other.json" } },
    });
    assert.equal(rev.statusCode, 200);
    assert.notEqual(rev.json().latest_revision_id, d.latest_revision_id);
    assert.equal(rev.json().source_revision_config.graph_config_path, "other.json");
    const list = (await t.call({ method: "GET", url: `/v2/deployments/${d.id}/revisions?limit=1` })).json();
    assert.equal(list.resources[0].id, rev.json().latest_revision_id);
    const immutable = await t.call({
      method: "PATCH",
      url: `/v2/deployments/${d.id}`,
      payload: { name: "renamed" },
    });
    assert.equal(immutable.statusCode, 400);
    const badType = await t.call({
      method: "PATCH",
      url: `/v2/deployments/${d.id}`,
      payload: { secrets: "x" },
    });
    assert.equal(badType.statusCode, 422);
    assert.deepEqual(badType.json().detail[0].loc, ["body", "secrets"]);
  });

  it("DELETE: 204, AWAITING_DELETE, then 404; the tracing project stays unless asked", async () => {
    const keep = (await post(externalBody("deleted-keep"))).json();
    const drop = (await post(externalBody("deleted-drop"))).json();
    const force = await t.call({ method: "DELETE", url: `/v2/deployments/${keep.id}?force=true` });
    assert.equal(force.statusCode, 400, "force only on a deployment already being deleted");
    const res = await t.call({ method: "DELETE", url: `/v2/deployments/${keep.id}` });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, "");
    assert.equal(
      (await t.call({ method: "DELETE", url: `/v2/deployments/${drop.id}?delete_tracing_project=true` }))
        .statusCode,
      204,
    );
    for (const id of [keep.id, drop.id]) {
      await waitFor(
        async () => (await get(id)).statusCode,
        (s) => s === 404,
      );
    }
    assert.equal(fs.existsSync(path.join(t.dataDir, "deployments", keep.id)), false);
    const projects = (await t.call({ method: "GET", url: "/v2/tracing-projects?limit=100" })).json();
    const names = projects.resources.map((p: { name: string }) => p.name);
    assert.ok(names.includes("deleted-keep"));
    assert.ok(!names.includes("deleted-drop"));
    const kept = projects.resources.find((p: { name: string }) => p.name === "deleted-keep");
    assert.equal(kept.deployment_id, null);
    assert.equal((await t.call({ method: "GET", url: `/v2/tracing-projects/${kept.id}` })).statusCode, 200);
    // Issue 17: the kept project no longer blocks its name; a new deployment takes it over.
    const reborn = await post(externalBody("deleted-keep"));
    assert.equal(reborn.statusCode, 201, "a kept project's name is reusable");
    const adopted = await t.call({ method: "GET", url: `/v2/tracing-projects/${kept.id}` });
    assert.equal(adopted.json().deployment_id, reborn.json().id);
    assert.equal((await post(externalBody("deleted-drop"))).statusCode, 201);
    assert.equal((await t.call({ method: "DELETE", url: `/v2/deployments/${keep.id}` })).statusCode, 404);
  });

  it("changes to a deployment being deleted are 409", async () => {
    const d = (await post(externalBody("being-deleted"))).json();
    await t.plane.provisioner.stop();
    try {
      assert.equal((await t.call({ method: "DELETE", url: `/v2/deployments/${d.id}` })).statusCode, 204);
      assert.equal((await get(d.id)).json().status, "AWAITING_DELETE");
      const patch = await t.call({
        method: "PATCH",
        url: `/v2/deployments/${d.id}`,
        payload: { source_revision_config: { image_uri: "i:2" } },
      });
      assert.equal(patch.statusCode, 409);
      assert.equal(
        (await t.call({ method: "DELETE", url: `/v2/deployments/${d.id}?force=true` })).statusCode,
        204,
      );
    } finally {
      t.plane.provisioner.start(100);
    }
    await waitFor(
      async () => (await get(d.id)).statusCode,
      (s) => s === 404,
    );
  });

  it("bulk delete: 200 when all exist, 207 when some do not, 404 when none do", async () => {
    const a = (await post(externalBody("bulk-a"))).json();
    const b = (await post(externalBody("bulk-b"))).json();
    const missing = "00000000-0000-4000-8000-00000000abcd";
    const all = await t.call({ method: "DELETE", url: `/v2/deployments?deployment_ids=${a.id}` });
    assert.equal(all.statusCode, 200);
    const some = await t.call({
      method: "DELETE",
      url: `/v2/deployments?deployment_ids=${b.id}&deployment_ids=${missing}`,
    });
    assert.equal(some.statusCode, 207);
    assert.deepEqual(some.json().not_found, [missing]);
    assert.equal(
      (await t.call({ method: "DELETE", url: `/v2/deployments?deployment_ids=${missing}` })).statusCode,
      404,
    );
    assert.equal((await t.call({ method: "DELETE", url: "/v2/deployments" })).statusCode, 422);
  });
});

describe("documentation", () => {
  it("serves /openapi.json (version 0.1.0, the deployment paths) and the interactive /docs without a key", async () => {
    const doc = await t.plane.app.inject({ method: "GET", url: "/openapi.json" });
    assert.equal(doc.statusCode, 200);
    const json = doc.json();
    assert.equal(json.info.version, "0.1.0");
    for (const p of [
      "/v2/deployments",
      "/v2/deployments/{deployment_id}",
      "/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy",
    ]) {
      assert.ok(json.paths[p], p);
    }
    const reference = await t.plane.app.inject({ method: "GET", url: "/docs" });
    assert.equal(reference.statusCode, 200);
    assert.match(reference.body, /data-path="\/v2\/deployments"/);
    assert.match(reference.body, /data-path="\/langsmith-api\/runs\/multipart"/);
    const html = await t.plane.app.inject({ method: "GET", url: "/docs/swagger" });
    assert.equal(html.statusCode, 200);
    assert.match(html.body, /swagger-ui/);
    // The page's script and the document it loads come from this server, not a CDN.
    assert.doesNotMatch(html.body, /https?:\/\/(?!127\.0\.0\.1|localhost)/);
    // Same-origin only; swagger-ui's inline style allowed; no upgrade to https of a plain-http server.
    const csp = String(html.headers["content-security-policy"]);
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /style-src 'self' 'unsafe-inline'/);
    assert.doesNotMatch(csp, /upgrade-insecure-requests|https:/);
    const init = await t.plane.app.inject({ method: "GET", url: "/docs/static/swagger-initializer.js" });
    assert.equal(init.statusCode, 200);
    const spec = await t.plane.app.inject({ method: "GET", url: "/docs/json" });
    assert.ok(spec.json().paths["/v2/deployments"]);
    assert.ok(spec.json().paths["/langsmith-api/runs/query"], "the tracing API is listed");
  });

  it("gives every operation a summary and response schemas", async () => {
    const doc = (await t.plane.app.inject({ method: "GET", url: "/openapi.json" })).json();
    const missing: string[] = [];
    for (const [p, item] of Object.entries<
      Record<string, { summary?: string; responses?: Record<string, { content?: unknown }> }>
    >(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const responses = Object.entries<{ content?: unknown }>(op.responses ?? {});
        const described = responses.some(([code, r]) => r.content !== undefined || code === "204");
        if (!op.summary) missing.push(`${method} ${p}: no summary`);
        if (!described) missing.push(`${method} ${p}: no response schema`);
      }
    }
    assert.deepEqual(missing, []);
    assert.ok(Object.keys(doc.paths).length > 25);
  });
});
