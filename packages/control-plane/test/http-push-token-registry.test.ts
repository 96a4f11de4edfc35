// push-token with a registry the operator configured (BERTH_REGISTRY_URL/TOKEN): internal_container
// deployments get its credentials, in the real service's shape ({token, registry_url}), and the
// image they push runs on the workspace's listener.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseControlPlaneConfig } from "../src/config.js";
import { addListener, usePlane, waitFor } from "./helpers.js";

const plane = usePlane({
  BERTH_REGISTRY_URL: "https://registry.example.com/berth/",
  BERTH_REGISTRY_TOKEN: "registry-push-token-0123456789",
});

async function create(payload: Record<string, unknown>) {
  const created = await plane().call({ method: "POST", url: "/v2/deployments", payload });
  assert.equal(created.statusCode, 201, created.body);
  return created.json<{
    id: string;
    latest_revision_id: string;
    source_config: { listener_id: string | null };
  }>();
}

describe("push-token with an operator's registry", () => {
  it("returns the registry's credentials for internal_container; other sources keep the 400", async () => {
    const pushed = await create({
      name: "pushed-with-registry",
      source: "internal_container",
      source_config: {},
      source_revision_config: {},
      secrets: [],
    });
    const res = await plane().call({ method: "POST", url: `/v2/deployments/${pushed.id}/push-token` });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      token: "registry-push-token-0123456789",
      registry_url: "registry.example.com/berth",
    });
    const other = await create({
      name: "external-with-registry",
      source: "external_container",
      source_config: { resource_spec: {} },
      source_revision_config: { image_uri: "registry.example/agent:1" },
      secrets: [],
    });
    const refused = await plane().call({ method: "POST", url: `/v2/deployments/${other.id}/push-token` });
    assert.equal(refused.statusCode, 400);
    const tenant = await plane().addTenant();
    const foreign = await plane().raw({
      method: "POST",
      url: `/v2/deployments/${pushed.id}/push-token`,
      headers: { "x-api-key": tenant.key },
    });
    assert.equal(foreign.statusCode, 404, "another workspace's deployment");
  });

  it("places an internal_container deployment on the workspace's only listener, which gets its pushed image", async () => {
    const listener = await addListener(plane(), "registry-cluster");
    const d = await create({
      name: "pushed-to-listener",
      source: "internal_container",
      source_config: {},
      source_revision_config: {},
      secrets: [],
    });
    assert.equal(d.source_config.listener_id, listener.id);
    // As `langgraph deploy` does after pushing: PATCH the image in.
    const patched = await plane().call({
      method: "PATCH",
      url: `/v2/deployments/${d.id}`,
      payload: {
        revision_source: "internal_container",
        source_revision_config: { image_uri: "registry.example.com/berth/pushed-to-listener@sha256:abc" },
      },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const revisionId = patched.json<{ latest_revision_id: string }>().latest_revision_id;
    await waitFor(
      async () =>
        (await plane().call({ method: "GET", url: `/v2/deployments/${d.id}/revisions/${revisionId}` })).json<{
          status: string;
        }>().status,
      (status) => status === "AWAITING_DEPLOY",
    );
    const state = await plane().raw({
      method: "GET",
      url: `/v2/listeners/${listener.id}/desired-state`,
      headers: { authorization: `Bearer ${listener.listener_key}` },
    });
    const mine = state
      .json<{
        deployments: Array<{
          deployment_id: string;
          namespace: string;
          revision: { image_uri: string } | null;
        }>;
      }>()
      .deployments.find((x) => x.deployment_id === d.id);
    assert.equal(mine?.namespace, "agents");
    assert.equal(mine?.revision?.image_uri, "registry.example.com/berth/pushed-to-listener@sha256:abc");
  });

  it("needs both the registry and its token", () => {
    const parse = (env: Record<string, string>) => parseControlPlaneConfig({ flags: {}, env, cwd: "/tmp" });
    assert.equal(parse({}).registry, null);
    assert.throws(() => parse({ BERTH_REGISTRY_URL: "registry.example.com" }), /go together/);
    assert.throws(
      () => parse({ BERTH_REGISTRY_URL: "not a host", BERTH_REGISTRY_TOKEN: "t" }),
      /Invalid BERTH_REGISTRY_URL/,
    );
  });
});
