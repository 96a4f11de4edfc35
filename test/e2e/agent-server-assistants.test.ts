// Assistants through the SDK: create, versions, latest, search/count, delete, graph and schemas.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { messageTypes, statusOf, useFixtureServer } from "./helpers.js";

const ctx = useFixtureServer();

describe("assistants API", () => {
  it("creates, patches into versions, sets the latest, counts and deletes", async () => {
    const client = ctx.client();
    const tag = `a-${Date.now()}`;
    const created = await client.assistants.create({
      graphId: "echo",
      name: "Echo bot",
      metadata: { tag },
      config: { configurable: { tone: "dry" } },
    });
    assert.equal(created.version, 1);
    assert.equal(created.graph_id, "echo");
    assert.equal(
      await statusOf(client.assistants.create({ graphId: "echo", assistantId: created.assistant_id })),
      409,
    );
    const same = await client.assistants.create({
      graphId: "echo",
      assistantId: created.assistant_id,
      ifExists: "do_nothing",
    });
    assert.equal(same.version, 1);
    assert.equal(await statusOf(client.assistants.create({ graphId: "no-such-graph" })), 404);

    const v2 = await client.assistants.update(created.assistant_id, {
      name: "Echo bot 2",
      metadata: { extra: true },
    });
    assert.equal(v2.version, 2);
    assert.equal(v2.name, "Echo bot 2");
    assert.deepEqual(v2.metadata, { tag, extra: true });
    const versions = await client.assistants.getVersions(created.assistant_id);
    assert.deepEqual(
      versions.map((v) => v.version),
      [2, 1],
    );
    const back = await client.assistants.setLatest(created.assistant_id, 1);
    assert.equal(back.version, 1);
    assert.equal(back.name, "Echo bot");
    assert.equal((await client.assistants.get(created.assistant_id)).name, "Echo bot");

    assert.equal(await client.assistants.count({ metadata: { tag } }), 1);
    const found = await client.assistants.search({ metadata: { tag } });
    assert.deepEqual(
      found.map((a) => a.assistant_id),
      [created.assistant_id],
    );
    assert.equal(
      (await client.assistants.search({ name: "echo BOT" })).length >= 1,
      true,
      "name search ignores case",
    );

    // A run through a user assistant uses its config.
    const thread = await client.threads.create();
    const values = await client.runs.wait(thread.thread_id, created.assistant_id, {
      input: { messages: [{ role: "user", content: "hi" }] },
    });
    assert.deepEqual(messageTypes(values), ["human", "ai"]);
    const run = (await client.runs.list(thread.thread_id))[0];
    const configurable = (run as unknown as { kwargs: { config: { configurable: Record<string, unknown> } } })
      .kwargs.config.configurable;
    assert.equal(configurable.tone, "dry");
    assert.equal(configurable.assistant_id, created.assistant_id);

    await client.assistants.delete(created.assistant_id);
    assert.equal(await statusOf(client.assistants.get(created.assistant_id)), 404);
    assert.equal(await statusOf(client.assistants.delete(randomUUID())), 404);
  });

  it("draws the graph and describes its schemas", async () => {
    const client = ctx.client();
    const drawn = await client.assistants.getGraph("agent");
    const nodes = (drawn.nodes as Array<{ id: string }>).map((n) => n.id);
    for (const node of ["__start__", "agent", "tools", "__end__"])
      assert.ok(nodes.includes(node), `node ${node}`);
    assert.ok((drawn.edges as unknown[]).length >= 3);
    const schemas = await client.assistants.getSchemas("agent");
    assert.equal(schemas.graph_id, "agent");
    assert.ok("messages" in ((schemas.state_schema as { properties: object }).properties ?? {}));
    assert.deepEqual(await client.assistants.getSubgraphs("agent"), {});
  });
});
