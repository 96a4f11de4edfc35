// The Store API (long-term memory) through the SDK, and the same store as graphs see it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { statusOf, useFixtureServer } from "./helpers.js";

const ctx = useFixtureServer();

/** A namespace of its own for each test (the server is shared by the file). */
const ns = (...labels: string[]) => [`t${Math.random().toString(36).slice(2, 10)}`, ...labels];

describe("store", () => {
  it("put, get, overwrite and delete an item", async () => {
    const client = ctx.client();
    const namespace = ns("docs");
    assert.equal(await client.store.getItem(namespace, "a"), null);
    await client.store.putItem(namespace, "a", { title: "first" });
    const item = await client.store.getItem(namespace, "a");
    assert.ok(item);
    assert.deepEqual(item.namespace, namespace);
    assert.equal(item.key, "a");
    assert.deepEqual(item.value, { title: "first" });
    assert.ok(!Number.isNaN(Date.parse(item.createdAt)));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await client.store.putItem(namespace, "a", { title: "second" });
    const updated = await client.store.getItem(namespace, "a");
    assert.deepEqual(updated?.value, { title: "second" });
    assert.equal(updated?.createdAt, item.createdAt);
    assert.ok((updated?.updatedAt ?? "") > item.updatedAt);
    await client.store.deleteItem(namespace, "a");
    assert.equal(await client.store.getItem(namespace, "a"), null);
  });

  it("search by namespace prefix and filter, newest first, with limit and offset", async () => {
    const client = ctx.client();
    const root = ns();
    // Apart by a few ms, so "newest first" has one answer.
    const tick = () => new Promise((resolve) => setTimeout(resolve, 3));
    await client.store.putItem([...root, "a"], "1", { kind: "x", n: 1 });
    await tick();
    await client.store.putItem([...root, "a", "deep"], "2", { kind: "y", n: 2 });
    await tick();
    await client.store.putItem([...root, "b"], "3", { kind: "x", n: 3 });
    await client.store.putItem([`${root[0]}x`], "4", { kind: "x", n: 4 });
    const all = await client.store.searchItems(root);
    assert.deepEqual(
      all.items.map((i) => i.key),
      ["3", "2", "1"],
    );
    const underA = await client.store.searchItems([...root, "a"]);
    assert.deepEqual(underA.items.map((i) => i.key).sort(), ["1", "2"]);
    const xs = await client.store.searchItems(root, { filter: { kind: "x" } });
    assert.deepEqual(
      xs.items.map((i) => i.key),
      ["3", "1"],
    );
    const big = await client.store.searchItems(root, { filter: { n: { $gte: 2 } } });
    assert.deepEqual(
      big.items.map((i) => i.key),
      ["3", "2"],
    );
    const page = await client.store.searchItems(root, { limit: 1, offset: 1 });
    assert.deepEqual(
      page.items.map((i) => i.key),
      ["2"],
    );
    // A query needs a semantic index, which Berth does not have: it is accepted and ignored.
    const queried = await client.store.searchItems(root, { query: "anything", filter: { kind: "y" } });
    assert.deepEqual(
      queried.items.map((i) => i.key),
      ["2"],
    );
  });

  it("lists namespaces with prefix, suffix, max depth and paging", async () => {
    const client = ctx.client();
    const root = ns();
    const [r] = root;
    await client.store.putItem([...root, "users", "u1"], "k", {});
    await client.store.putItem([...root, "users", "u2"], "k", {});
    await client.store.putItem([...root, "users", "u2", "notes"], "k", {});
    await client.store.putItem([...root, "teams", "t1"], "k", {});
    const { namespaces } = await client.store.listNamespaces({ prefix: root });
    assert.deepEqual(namespaces, [
      [r, "teams", "t1"],
      [r, "users", "u1"],
      [r, "users", "u2"],
      [r, "users", "u2", "notes"],
    ]);
    const shallow = await client.store.listNamespaces({ prefix: root, maxDepth: 2 });
    assert.deepEqual(shallow.namespaces, [
      [r, "teams"],
      [r, "users"],
    ]);
    const suffixed = await client.store.listNamespaces({ prefix: root, suffix: ["notes"] });
    assert.deepEqual(suffixed.namespaces, [[r, "users", "u2", "notes"]]);
    const wildcard = await client.store.listNamespaces({ prefix: [r ?? "", "*", "u2"] });
    assert.deepEqual(wildcard.namespaces, [
      [r, "users", "u2"],
      [r, "users", "u2", "notes"],
    ]);
    const page = await client.store.listNamespaces({ prefix: root, limit: 2, offset: 1 });
    assert.deepEqual(page.namespaces, [
      [r, "users", "u1"],
      [r, "users", "u2"],
    ]);
  });

  it("refuses empty namespaces and labels that are empty or contain a period (422)", async () => {
    const url = ctx.server().url;
    const put = (body: unknown) =>
      fetch(`${url}/store/items`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    for (const namespace of [[], ["a", ""], ["a.b"]]) {
      const response = await put({ namespace, key: "k", value: {} });
      assert.equal(response.status, 422, JSON.stringify(namespace));
      assert.equal(typeof ((await response.json()) as { detail: unknown }).detail, "string");
    }
    assert.equal((await put({ namespace: ["a"], key: "k", value: "not an object" })).status, 422);
    const get = await fetch(`${url}/store/items?namespace=a..b&key=k`);
    assert.equal(get.status, 422);
    assert.equal(await statusOf(ctx.client().store.searchItems(["ok"], { limit: 0 })), 422);
  });

  it("an item with a ttl expires; reads refresh it unless refresh_ttl is false", async () => {
    const client = ctx.client();
    const namespace = ns("ttl");
    // 0.02 minutes = 1.2 s.
    await client.store.putItem(namespace, "short", { v: 1 }, { ttl: 0.02 });
    await client.store.putItem(namespace, "kept", { v: 2 }, { ttl: 0.02 });
    await client.store.putItem(namespace, "forever", { v: 3 }, { ttl: null });
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.ok(await client.store.getItem(namespace, "kept", { refreshTtl: true }));
    assert.ok(await client.store.getItem(namespace, "short", { refreshTtl: false }));
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.equal(await client.store.getItem(namespace, "short"), null);
    assert.ok(await client.store.getItem(namespace, "kept", { refreshTtl: false }));
    const found = await client.store.searchItems(namespace, { refreshTtl: false });
    assert.deepEqual(found.items.map((i) => i.key).sort(), ["forever", "kept"]);
    const listed = await client.store.listNamespaces({ prefix: namespace });
    assert.deepEqual(listed.namespaces, [namespace]);
    await new Promise((resolve) => setTimeout(resolve, 1300));
    assert.equal(await client.store.getItem(namespace, "kept"), null);
    const { items } = await client.store.searchItems(namespace);
    assert.deepEqual(
      items.map((i) => i.key),
      ["forever"],
    );
  });

  it("a graph writes to the store during a run and the API reads it, and the other way round", async () => {
    const client = ctx.client();
    const namespace = ["fixture", "memories"];
    const key = `k${Math.random().toString(36).slice(2, 8)}`;
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "memory", {
      input: { messages: [{ role: "user", content: `remember ${key} the sky is green` }] },
    });
    const item = await client.store.getItem(namespace, key);
    assert.deepEqual(item?.value, { text: "the sky is green" });

    await client.store.putItem(namespace, key, { text: "written through the API" });
    const values = (await client.runs.wait(thread.thread_id, "memory", {
      input: { messages: [{ role: "user", content: `recall ${key}` }] },
    })) as { messages: Array<{ content: string }> };
    assert.equal(values.messages.at(-1)?.content, "written through the API");

    await client.store.deleteItem(namespace, key);
    const after = (await client.runs.wait(thread.thread_id, "memory", {
      input: { messages: [{ role: "user", content: `recall ${key}` }] },
    })) as { messages: Array<{ content: string }> };
    assert.equal(after.messages.at(-1)?.content, `nothing for ${key}`);
  });
});
