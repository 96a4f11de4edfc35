// push-token: the real service's registry credentials for internal_container deployments. Berth
// has no registry, so both cases are a 400 that says what to do instead; foreign ids are 404.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { externalBody, usePlane } from "./helpers.js";

const plane = usePlane();

async function create(payload: Record<string, unknown>): Promise<string> {
  const created = await plane().call({ method: "POST", url: "/v2/deployments", payload });
  assert.equal(created.statusCode, 201, created.body);
  return created.json<{ id: string }>().id;
}

describe("POST /v2/deployments/{id}/push-token", () => {
  it("is a 400 with the real service's sentence for sources other than internal_container", async () => {
    const id = await create(externalBody("not-pushed"));
    const res = await plane().call({ method: "POST", url: `/v2/deployments/${id}/push-token` });
    assert.equal(res.statusCode, 400);
    assert.match(
      res.json<{ detail: string }>().detail,
      /only available for 'internal_docker' source deployments/,
    );
  });

  it("is a 400 naming the alternatives for internal_container (no registry here)", async () => {
    const id = await create({
      name: "pushed-image",
      source: "internal_container",
      source_config: {},
      source_revision_config: {},
      secrets: [],
    });
    const res = await plane().call({ method: "POST", url: `/v2/deployments/${id}/push-token` });
    assert.equal(res.statusCode, 400);
    assert.match(res.json<{ detail: string }>().detail, /no container registry.*berth deploy/);
  });

  it("is a 404 for an unknown deployment", async () => {
    const res = await plane().call({
      method: "POST",
      url: "/v2/deployments/6f2c1f7e-5f53-4c38-9d8e-0e4f1b9a1c11/push-token",
    });
    assert.equal(res.statusCode, 404);
  });
});
