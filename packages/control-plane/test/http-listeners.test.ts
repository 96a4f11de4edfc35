// Listeners: CRUD with the real service's codes, aliases, immutability, tenant isolation, and the
// listener/namespace checks deployments make against them.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { externalBody, usePlane } from "./helpers.js";

const plane = usePlane();

async function createListener(computeId: string, namespaces: string[] | null) {
  return plane().call({
    method: "POST",
    url: "/v2/listeners",
    payload: { compute_type: "k8s", compute_id: computeId, compute_config: { k8s_namespaces: namespaces } },
  });
}

describe("listeners", () => {
  it("creates (201, in the names it was sent in: real ones here), lists, gets, patches and deletes (204)", async () => {
    const created = await createListener("cluster-a", ["agents", "staging"]);
    assert.equal(created.statusCode, 201, created.body);
    const listener = created.json<{
      id: string;
      compute_type: string;
      compute_config: { k8s_namespaces: string[] };
    }>();
    assert.equal(listener.compute_type, "k8s");
    assert.deepEqual(listener.compute_config, { k8s_namespaces: ["agents", "staging"] });
    const dup = await createListener("cluster-a", null);
    assert.equal(dup.statusCode, 409);
    assert.match(dup.json<{ detail: string }>().detail, /compute ID 'cluster-a' already exists/);
    const list = await plane().call({ method: "GET", url: "/v2/listeners?limit=10" });
    assert.ok(
      list
        .json<{ resources: Array<{ id: string }>; offset: number }>()
        .resources.some((l) => l.id === listener.id),
    );
    const patched = await plane().call({
      method: "PATCH",
      url: `/v2/listeners/${listener.id}`,
      payload: { version: "1.2.3", compute_config: { cluster_namespaces: ["agents"] } },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual(
      patched.json<{ compute_config: unknown }>().compute_config,
      { k8s_namespaces: ["agents"] },
      "a PATCH in the other names does not move the listener's vocabulary",
    );
    const immutable = await plane().call({
      method: "PATCH",
      url: `/v2/listeners/${listener.id}`,
      payload: { compute_id: "renamed" },
    });
    assert.equal(immutable.statusCode, 400);
    const other = await plane().addTenant();
    const foreign = await plane().call({
      method: "GET",
      url: `/v2/listeners/${listener.id}`,
      headers: { "x-api-key": other.key },
    });
    assert.equal(foreign.statusCode, 404);
    assert.equal(
      (
        await plane().call({
          method: "DELETE",
          url: `/v2/listeners/${listener.id}`,
          headers: { "x-api-key": other.key },
        })
      ).statusCode,
      404,
    );
    assert.equal(
      (await plane().call({ method: "DELETE", url: `/v2/listeners/${listener.id}` })).statusCode,
      204,
    );
    assert.equal(
      (await plane().call({ method: "GET", url: `/v2/listeners/${listener.id}` })).statusCode,
      404,
    );
  });

  it("validates bodies with 422 and the API's loc paths", async () => {
    const bad = await plane().call({
      method: "POST",
      url: "/v2/listeners",
      payload: {
        compute_type: "vm",
        compute_id: "x",
        compute_config: { cluster_namespaces: ["Not_A_Label"] },
      },
    });
    assert.equal(bad.statusCode, 422);
    const locs = bad.json<{ detail: Array<{ loc: unknown[] }> }>().detail.map((d) => d.loc.join("."));
    assert.ok(locs.includes("body.compute_type"), locs.join(" "));
    assert.ok(
      locs.some((l) => l.startsWith("body.compute_config.cluster_namespaces")),
      locs.join(" "),
    );
  });

  it("deployments may only name a listener of the tenant and one of its namespaces", async () => {
    const listener = (await createListener("cluster-b", ["agents"])).json<{ id: string }>();
    const body = (name: string, namespace: string | null) => ({
      name,
      source: "external_container",
      source_config: {
        listener_id: listener.id,
        ...(namespace ? { listener_config: { k8s_namespace: namespace } } : {}),
      },
      source_revision_config: { image_uri: "docker.io/library/nginx:1.27" },
      secrets: [],
    });
    assert.equal(
      (await plane().call({ method: "POST", url: "/v2/deployments", payload: body("placed", "agents") }))
        .statusCode,
      201,
    );
    const wrongNamespace = await plane().call({
      method: "POST",
      url: "/v2/deployments",
      payload: body("misplaced", "other"),
    });
    assert.equal(wrongNamespace.statusCode, 400);
    assert.match(wrongNamespace.json<{ detail: string }>().detail, /not one of the listener's namespaces/);
    const other = await plane().addTenant();
    const foreign = await plane().call({
      method: "POST",
      url: "/v2/deployments",
      headers: { "x-api-key": other.key },
      payload: body("foreign-listener", null),
    });
    assert.equal(foreign.statusCode, 400, "another tenant's listener is unknown");
  });

  it("an external_container without listener_id is refused (400, the real text) once the workspace has listeners", async () => {
    const tenant = await plane().addTenant();
    const as = { "x-api-key": tenant.key };
    const create = (payload: Record<string, unknown>) =>
      plane().call({ method: "POST", url: "/v2/deployments", headers: as, payload });
    // Without listeners nothing changes: the deployment is created as before.
    const before = await create(externalBody("no-listeners-yet"));
    assert.equal(before.statusCode, 201, before.body);

    const ids: string[] = [];
    for (const computeId of ["hybrid-a", "hybrid-b"]) {
      const made = await plane().call({
        method: "POST",
        url: "/v2/listeners",
        headers: as,
        payload: {
          compute_type: "k8s",
          compute_id: computeId,
          compute_config: { k8s_namespaces: ["agents"] },
        },
      });
      assert.equal(made.statusCode, 201, made.body);
      ids.push(made.json<{ id: string }>().id);
    }
    // In the order GET /v2/listeners gives them (newest first), as a Python list prints them.
    const listed = ids.toReversed();
    const expected = `Source configuration error: 'source_config.listener_id' is required for workspace with available listener IDs: ['${listed[0]}', '${listed[1]}']`;
    for (const body of [
      externalBody("unplaced"),
      externalBody("unplaced-real", { source: "external_docker" }),
      externalBody("namespace-only", {
        source: "external_docker",
        source_config: { resource_spec: {}, listener_config: { k8s_namespace: "agents" } },
      }),
    ]) {
      const refused = await create(body);
      assert.equal(refused.statusCode, 400, refused.body);
      assert.deepEqual(refused.json(), { detail: expected });
    }
    const names = (await plane().call({ method: "GET", url: "/v2/deployments?limit=100", headers: as }))
      .json<{ resources: Array<{ name: string }> }>()
      .resources.map((d) => d.name);
    assert.deepEqual(names, ["no-listeners-yet"], "nothing was created by the refused requests");

    const placed = await create(
      externalBody("placed-on-b", {
        source_config: {
          resource_spec: {},
          listener_id: ids[1],
          listener_config: { k8s_namespace: "agents" },
        },
      }),
    );
    assert.equal(placed.statusCode, 201, placed.body);
    // The deployment made before the listeners still takes revisions (listener_id is fixed at create).
    const patched = await plane().call({
      method: "PATCH",
      url: `/v2/deployments/${before.json<{ id: string }>().id}`,
      headers: as,
      payload: { source_revision_config: { image_uri: "registry.example/agent@sha256:def" } },
    });
    assert.equal(patched.statusCode, 200, patched.body);
  });

  it("answers each listener in the names its create used: GET one, list, PATCH, key rotation", async () => {
    const tenant = await plane().addTenant();
    const as = { "x-api-key": tenant.key };
    const call = (method: "GET" | "POST" | "PATCH", url: string, payload?: Record<string, unknown>) =>
      plane().call({ method, url, headers: as, ...(payload ? { payload } : {}) });
    const real = await call("POST", "/v2/listeners", {
      compute_type: "k8s",
      compute_id: "real-names",
      compute_config: { k8s_namespaces: ["agents"] },
    });
    const neutral = await call("POST", "/v2/listeners", {
      compute_type: "cluster",
      compute_id: "neutral-names",
      compute_config: { cluster_namespaces: ["agents"] },
    });
    assert.equal(real.statusCode, 201, real.body);
    assert.equal(neutral.statusCode, 201, neutral.body);
    const realId = real.json<{ id: string }>().id;
    const neutralId = neutral.json<{ id: string }>().id;
    const shape = (l: Record<string, unknown>) => ({
      compute_type: l.compute_type,
      compute_config: l.compute_config,
    });
    const asReal = { compute_type: "k8s", compute_config: { k8s_namespaces: ["agents"] } };
    const asNeutral = { compute_type: "cluster", compute_config: { cluster_namespaces: ["agents"] } };

    assert.deepEqual(shape(real.json()), asReal);
    assert.deepEqual(shape(neutral.json()), asNeutral);
    assert.deepEqual(shape((await call("GET", `/v2/listeners/${realId}`)).json()), asReal);
    assert.deepEqual(shape((await call("GET", `/v2/listeners/${neutralId}`)).json()), asNeutral);
    const listed = (await call("GET", "/v2/listeners?limit=100")).json<{
      resources: Array<Record<string, unknown>>;
    }>();
    assert.deepEqual(
      listed.resources.map((l) => [l.id, shape(l)]),
      [
        [neutralId, asNeutral],
        [realId, asReal],
      ],
    );
    // The official CLI's reading of a listener (Listener.from_resource): compute_config.k8s_namespaces.
    assert.deepEqual(
      (listed.resources.find((l) => l.id === realId)?.compute_config as { k8s_namespaces?: string[] })
        ?.k8s_namespaces,
      ["agents"],
    );
    const patched = await call("PATCH", `/v2/listeners/${neutralId}`, {
      compute_type: "k8s",
      compute_config: { k8s_namespaces: ["agents", "staging"] },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual(shape(patched.json()), {
      compute_type: "cluster",
      compute_config: { cluster_namespaces: ["agents", "staging"] },
    });
    const rotated = await call("POST", `/v2/listeners/${realId}/key`);
    assert.equal(rotated.statusCode, 200, rotated.body);
    assert.deepEqual(shape(rotated.json()), asReal);
    assert.ok(rotated.json<{ listener_key: string }>().listener_key);
    // A deployment may name it and its namespace in either vocabulary.
    const placed = await call("POST", "/v2/deployments", {
      ...externalBody("on-real-listener", { source: "external_docker" }),
      source_config: { resource_spec: {}, listener_id: realId, listener_config: { k8s_namespace: "agents" } },
    });
    assert.equal(placed.statusCode, 201, placed.body);
  });
});
