import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CustomAuth } from "../src/auth/custom-auth.js";
import { filtersToPattern, matchesAuthFilters } from "../src/auth/filters.js";

describe("auth filters", () => {
  it("match plain values, $eq and $contains against metadata", () => {
    assert.ok(matchesAuthFilters({ owner: "a", tags: ["x", "y"] }, { owner: "a", tags: { $contains: "y" } }));
    assert.ok(matchesAuthFilters({ owner: "a" }, { owner: { $eq: "a" } }));
    assert.ok(!matchesAuthFilters({ owner: "b" }, { owner: "a" }));
    assert.ok(!matchesAuthFilters({}, { owner: "a" }));
    assert.ok(!matchesAuthFilters({ tags: ["x"] }, { tags: { $contains: "y" } }));
    assert.deepEqual(filtersToPattern({ owner: { $eq: "a" }, tags: { $contains: "y" } }), {
      owner: "a",
      tags: ["y"],
    });
  });
});

describe("CustomAuth", () => {
  const user = { identity: "u", display_name: "u", is_authenticated: true, permissions: ["p"] };
  it("looks handlers up from the most specific key", async () => {
    const calls: string[] = [];
    const auth = new CustomAuth({
      callbacks: {
        "threads:read": () => calls.push("exact") && undefined,
        threads: () => calls.push("resource") && undefined,
        "*:read": () => calls.push("action") && undefined,
        "*": () => calls.push("any") && undefined,
      },
    });
    await auth.authorize("threads:read", user, {});
    await auth.authorize("threads:update", user, {});
    await auth.authorize("assistants:read", user, {});
    await auth.authorize("store:put", user, {});
    assert.deepEqual(calls, ["exact", "resource", "action", "any"]);
  });

  it("maps results and errors: false → 403, filters returned, thrown status kept", async () => {
    const auth = new CustomAuth({
      authenticate: () => {
        throw Object.assign(new Error("nope"), { status: 401 });
      },
      callbacks: { "threads:read": () => false, "threads:search": () => ({ owner: "u" }) },
    });
    await assert.rejects(
      auth.authorize("threads:read", user, {}),
      (e: { status: number }) => e.status === 403,
    );
    assert.deepEqual(await auth.authorize("threads:search", user, {}), { owner: "u" });
    assert.equal(await auth.authorize("crons:read", user, {}), null);
    await assert.rejects(
      auth.authenticate(new Request("http://x/")),
      (e: { status: number; message: string }) => e.status === 401 && e.message === "nope",
    );
  });

  it("normalises a string identity into a user", async () => {
    const auth = new CustomAuth({ authenticate: () => "bob" });
    assert.deepEqual(await auth.authenticate(new Request("http://x/")), {
      identity: "bob",
      display_name: "bob",
      is_authenticated: true,
      permissions: [],
    });
  });
});
