// Signed Studio links: a grant for one deployment of one workspace, valid until it expires, refused
// when any byte of it changes or another key signed it.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { describe, it } from "node:test";
import { STUDIO_LINK_TTL_MS, StudioLinks } from "../src/services/studio-links.js";

describe("StudioLinks", () => {
  const links = new StudioLinks(crypto.randomBytes(32));
  const now = new Date("2026-11-27T08:00:00Z");
  const TENANT = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b";
  const DEPLOYMENT = "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d";

  it("verifies what it minted, until it expires", () => {
    const { token, expiresAt } = links.mint(TENANT, DEPLOYMENT, now);
    assert.equal(expiresAt.getTime() - now.getTime(), STUDIO_LINK_TTL_MS);
    assert.deepEqual(links.verify(token, now), {
      tenantId: TENANT,
      deploymentId: DEPLOYMENT,
      expiresAt,
    });
    assert.ok(links.verify(token, new Date(expiresAt.getTime() - 1000)));
    assert.equal(links.verify(token, expiresAt), null);
  });

  it("is one short path segment", () => {
    const { token } = links.mint(TENANT, DEPLOYMENT, now);
    assert.ok(token.length <= 100, `${token.length} characters`);
    assert.match(token, /^[\w.-]+$/);
    assert.throws(() => links.mint("not-a-uuid", DEPLOYMENT, now), /UUIDs/);
  });

  it("refuses changed tokens and tokens of another key", () => {
    const { token } = links.mint(TENANT, DEPLOYMENT, now);
    const [version, payload, signature] = token.split(".") as [string, string, string];
    const other = Buffer.from(JSON.stringify({ t: "tenant-b", d: "deployment-1", e: 4102444800 })).toString(
      "base64url",
    );
    for (const changed of [
      `${version}.${other}.${signature}`,
      `${version}.${payload}.${signature.slice(0, -2)}AA`,
      `s2.${payload}.${signature}`,
      `${token}.extra`,
      "",
      "s1..",
    ]) {
      assert.equal(links.verify(changed, now), null, changed);
    }
    const elsewhere = new StudioLinks(crypto.randomBytes(32));
    assert.equal(elsewhere.verify(token, now), null);
  });
});
