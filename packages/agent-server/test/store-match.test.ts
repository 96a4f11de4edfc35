import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StoreGetQuery, StorePut } from "@berth-platform/schemas";
import { matchesFilter, namespaceMatches, selectNamespaces } from "../src/domain/store-match.js";

describe("store namespaces", () => {
  it("labels may not be empty or contain a period; a put needs a namespace", () => {
    const put = (namespace: string[]) => StorePut.safeParse({ namespace, key: "k", value: {} }).success;
    assert.equal(put(["a", "b"]), true);
    assert.equal(put(["a:b"]), true);
    assert.equal(put([]), false);
    assert.equal(put(["a", ""]), false);
    assert.equal(put(["a.b"]), false);
  });
  it("the GET query's dot-joined namespace is split back into labels", () => {
    assert.deepEqual(StoreGetQuery.parse({ namespace: "a.b", key: "k" }).namespace, ["a", "b"]);
    assert.deepEqual(StoreGetQuery.parse({ key: "k" }).namespace, []);
    assert.equal(StoreGetQuery.safeParse({ namespace: "a..b", key: "k" }).success, false);
    assert.equal(StoreGetQuery.parse({ namespace: "a", key: "k", refresh_ttl: "false" }).refresh_ttl, false);
  });
  it("prefix and suffix conditions, with * for any label", () => {
    assert.equal(namespaceMatches(["a", "b", "c"], ["a", "b"], "prefix"), true);
    assert.equal(namespaceMatches(["a", "b", "c"], ["a", "*", "c"], "prefix"), true);
    assert.equal(namespaceMatches(["a", "b", "c"], ["b"], "prefix"), false);
    assert.equal(namespaceMatches(["a", "b", "c"], ["b", "c"], "suffix"), true);
    assert.equal(namespaceMatches(["a"], ["a", "b"], "prefix"), false);
  });
  it("max depth cuts and de-duplicates; results are sorted and paged", () => {
    const all = [["b", "x"], ["a", "y", "z"], ["a", "y"], ["a"]];
    const query = { prefix: null, suffix: null, maxDepth: null, limit: 100, offset: 0 };
    assert.deepEqual(selectNamespaces(all, query), [["a"], ["a", "y"], ["a", "y", "z"], ["b", "x"]]);
    assert.deepEqual(selectNamespaces(all, { ...query, maxDepth: 1 }), [["a"], ["b"]]);
    assert.deepEqual(selectNamespaces(all, { ...query, prefix: ["a"], limit: 1, offset: 1 }), [["a", "y"]]);
  });
});

describe("store filters", () => {
  const value = { kind: "note", n: 3, tags: ["x"], nested: { deep: true } };
  it("equality on every key, nested objects field by field", () => {
    assert.equal(matchesFilter(value, { kind: "note" }), true);
    assert.equal(matchesFilter(value, { kind: "note", n: 4 }), false);
    assert.equal(matchesFilter(value, { tags: ["x"] }), true);
    assert.equal(matchesFilter(value, { nested: { deep: true } }), true);
    assert.equal(matchesFilter(value, { missing: "x" }), false);
  });
  it("comparison operators", () => {
    assert.equal(matchesFilter(value, { n: { $gt: 2, $lte: 3 } }), true);
    assert.equal(matchesFilter(value, { n: { $lt: 3 } }), false);
    assert.equal(matchesFilter(value, { kind: { $ne: "todo" } }), true);
    assert.equal(matchesFilter(value, { kind: { $in: ["todo", "note"] } }), true);
    assert.equal(matchesFilter(value, { kind: { $nin: ["note"] } }), false);
    assert.equal(matchesFilter(value, { n: { $eq: 3 } }), true);
  });
});
