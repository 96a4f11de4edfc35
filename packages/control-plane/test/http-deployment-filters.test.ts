// The published list filters of `GET /v2/deployments` beyond names, statuses and ids: a filter the
// API documents is applied (never silently ignored and answered with every deployment).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { addListener, externalBody, repoBody, usePlane } from "./helpers.js";

const plane = usePlane();

async function create(body: Record<string, unknown>): Promise<string> {
  const res = await plane().call({ method: "POST", url: "/v2/deployments", payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: string }>().id;
}

async function listed(query: string): Promise<string[]> {
  const res = await plane().call({
    method: "GET",
    url: `/v2/deployments?limit=100&name_contains=flt-&${query}`,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res
    .json<{ resources: Array<{ name: string }> }>()
    .resources.map((d) => d.name)
    .sort();
}

describe("GET /v2/deployments: the published filters", () => {
  it("deployment_type, remote_reconciled and tag_value_ids filter; a bad deployment_type is 422", async () => {
    await create(
      repoBody("flt-dev", {
        source_config: { ...(repoBody("x").source_config as object), deployment_type: "dev" },
      }),
    );
    await create(
      repoBody("flt-prod", {
        source_config: { ...(repoBody("x").source_config as object), deployment_type: "prod" },
      }),
    );
    await create(externalBody("flt-local"));
    const listener = await addListener(plane(), "flt-cluster");
    await create(
      externalBody("flt-remote", {
        source_config: { resource_spec: {}, listener_id: listener.id },
      }),
    );

    assert.deepEqual(await listed("deployment_type=dev"), ["flt-dev"]);
    assert.deepEqual(await listed("deployment_type=prod"), ["flt-prod"]);
    assert.deepEqual(await listed("remote_reconciled=true"), ["flt-remote"]);
    assert.deepEqual(await listed("remote_reconciled=false"), ["flt-dev", "flt-local", "flt-prod"]);
    // Berth keeps no tags: no deployment carries the tag asked for.
    assert.deepEqual(await listed("tag_value_ids=7d1f5a3e-0000-4000-8000-000000000001"), []);
    assert.deepEqual(await listed("image_version=0.0.0-none"), []);
    assert.equal(await listed("").then((names) => names.length), 4);

    const refused = await plane().call({ method: "GET", url: "/v2/deployments?deployment_type=huge" });
    assert.equal(refused.statusCode, 422, refused.body);
    assert.deepEqual(refused.json<{ detail: Array<{ loc: unknown[] }> }>().detail[0]?.loc, [
      "query",
      "deployment_type",
    ]);
  });
});
