// `select` on searches and run lists: rows cut down to the named fields, as the official server
// answers them, through the SDK as its docs show. An unknown field is a 422 naming it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { useFixtureServer } from "./helpers.js";

const ctx = useFixtureServer();

async function post(path: string, body: unknown) {
  const response = await fetch(`${ctx.server().url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

describe("select", () => {
  it("threads.search({select}) answers only those fields, in every row", async () => {
    const client = ctx.client();
    const marker = { suite: `select-${Date.now()}` };
    await client.threads.create({ metadata: marker });
    await client.threads.create({ metadata: marker });
    const rows = await client.threads.search({ metadata: marker, select: ["thread_id", "status"] });
    assert.equal(rows.length, 2);
    for (const row of rows) assert.deepEqual(Object.keys(row), ["thread_id", "status"]);
    // `context` is a field the SDK may name; a thread has none, so it is left out.
    const withContext = await client.threads.search({ metadata: marker, select: ["thread_id", "context"] });
    assert.deepEqual(Object.keys(withContext[0] ?? {}), ["thread_id"]);
    const whole = await client.threads.search({ metadata: marker });
    assert.ok(Object.keys(whole[0] ?? {}).includes("values"), "no select: whole rows");
  });

  it("assistants.search({select}) and runs.list({select}) answer only those fields", async () => {
    const client = ctx.client();
    const assistants = await client.assistants.search({
      graphId: "echo",
      select: ["assistant_id", "graph_id"],
    });
    assert.ok(assistants.length > 0);
    for (const row of assistants) assert.deepEqual(Object.keys(row), ["assistant_id", "graph_id"]);

    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "echo", {
      input: { messages: [{ role: "user", content: "hi" }] },
    });
    // The SDK sends the list as one JSON text in the query.
    const runs = await client.runs.list(thread.thread_id, { select: ["run_id", "status"] });
    assert.equal(runs.length, 1);
    assert.deepEqual(runs[0], { run_id: runs[0]?.run_id, status: "success" });
    // Repeated parameters are taken too.
    const repeated = await fetch(
      `${ctx.server().url}/threads/${thread.thread_id}/runs?select=status&select=run_id`,
    );
    assert.deepEqual(Object.keys(((await repeated.json()) as object[])[0] ?? {}), ["status", "run_id"]);
  });

  it("an unknown field is refused: 422 naming it", async () => {
    const refused = await post("/threads/search", { select: ["thread_id", "password"] });
    assert.equal(refused.status, 422);
    // The agent server's 422s carry one `detail` text, as the official server's do.
    assert.match((refused.body as { detail: string }).detail, /body\.select\.1/);
    assert.equal((await post("/assistants/search", { select: ["secrets"] })).status, 422);
    const client = ctx.client();
    const thread = await client.threads.create();
    const runs = await fetch(`${ctx.server().url}/threads/${thread.thread_id}/runs?select=["run_id","nope"]`);
    assert.equal(runs.status, 422);
  });
});
