// What a cluster could not follow is refused up front (issue 26): statuses Berth could not keep
// honest, and PATCHes that a running deployment's objects cannot take.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { externalBody, usePlane } from "./helpers.js";
import { deploymentCreator, refusedAt, SPEC } from "./kubernetes-rules-helpers.js";

const plane = usePlane();
const { create, name } = deploymentCreator(plane, "k8s-patch");

describe("honest statuses", () => {
  it("min_scale 0 (and queue_min_scale 0) are refused: nothing scales a deployment up from zero", async () => {
    refusedAt(
      await create({ min_scale: 0, max_scale: 2 }),
      [...SPEC, "min_scale"],
      /does not scale the API to zero/,
    );
    refusedAt(await create({ queue_min_scale: 0 }), [...SPEC, "queue_min_scale"]);
  });

  it("an external_container deployment without an image is refused at create, not left CREATING", async () => {
    const res = await plane().call({
      method: "POST",
      url: "/v2/deployments",
      payload: externalBody(name(), { source_revision_config: {} }),
    });
    const issue = refusedAt(res, ["body", "source_revision_config", "image_uri"]);
    assert.equal(issue.type, "missing");
  });
});

describe("PATCH: what the cluster cannot follow", () => {
  async function deployment(spec: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    const res = await create(spec, extra);
    assert.equal(res.statusCode, 201, res.body);
    return `/v2/deployments/${res.json<{ id: string }>().id}`;
  }
  const patch = (url: string, payload: Record<string, unknown>) =>
    plane().call({ method: "PATCH", url, payload });

  it("refuses the Kubernetes rules at PATCH time too", async () => {
    const url = await deployment({});
    refusedAt(await patch(url, { source_config: { resource_spec: { labels: { team: "my team" } } } }), [
      ...SPEC,
      "labels",
      "team",
    ]);
  });

  it("db_storage_gi grows (the listener expands the claim) but never shrinks", async () => {
    const url = await deployment({ db_storage_gi: 20 });
    refusedAt(
      await patch(url, { source_config: { resource_spec: { db_storage_gi: 10 } } }),
      [...SPEC, "db_storage_gi"],
      /cannot shrink the database volume from 20 Gi to 10 Gi/,
    );
    refusedAt(
      await patch(url, { source_config: { resource_spec: {} } }),
      [...SPEC, "db_storage_gi"],
      /to 10 Gi/,
    );
    assert.equal(
      (await patch(url, { source_config: { resource_spec: { db_storage_gi: 30 } } })).statusCode,
      200,
    );
    const unset = await deployment({});
    assert.equal(
      (await patch(unset, { source_config: { resource_spec: { db_storage_gi: 10 } } })).statusCode,
      200,
    );
  });

  it("an external database or Redis stays set for the deployment's life", async () => {
    const url = await deployment({});
    refusedAt(
      await patch(url, { secrets: [{ name: "POSTGRES_URI_CUSTOM", value: "postgres://db.example/x" }] }),
      ["body", "secrets"],
      /POSTGRES_URI_CUSTOM cannot be added after creation/,
    );
    const external = await deployment(
      {},
      { secret_references: [{ name: "REDIS_URI_CUSTOM", secret_name: "shared-redis", secret_key: "uri" }] },
    );
    refusedAt(
      await patch(external, { secret_references: [] }),
      ["body", "secrets"],
      /REDIS_URI_CUSTOM cannot be removed/,
    );
    assert.equal(
      (await patch(external, { source_revision_config: { image_uri: "registry.example/agent:2" } }))
        .statusCode,
      200,
    );
  });
});
