// Issue 10 compatibility cases through the official SDK, each against what the official servers do:
// the SDK logger, a graph that does not load, configurable.user_id and the langgraph_auth_* keys,
// snake_case run config, assistant name search, delete_threads and the official error wording.
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempDir, repoRoot, type SpawnedServer, spawnBerth } from "@berth-platform/testkit";
import { Client } from "@langchain/langgraph-sdk";

const CONFIG = path.join(repoRoot, "test/fixtures/compat-project/graph.json");

describe("agent server compatibility (issue 10)", () => {
  const temp = makeTempDir();
  let server: SpawnedServer;
  let client: Client;
  before(async () => {
    server = await spawnBerth(["dev", "--config", CONFIG, "--port", "0", "--data-dir", temp.dir], {
      env: { BERTH_LOG_LEVEL: "info" },
    });
    client = new Client({ apiUrl: server.url });
  });
  after(async () => {
    await server?.stop();
    temp.cleanup();
  });

  it("graphs can call getLogger() from @langchain/langgraph-sdk/logging, as on the official server", async () => {
    const result = (await client.runs.wait(null, "logged", { input: { text: "hi" } })) as { reply?: string };
    assert.equal(result.reply, "logged: hi");
    assert.match(server.output(), /logged graph imported/);
    assert.match(server.output(), /logged graph answering hi/);
  });

  it("one graph that does not load leaves the others served, and says why at start-up, in /info and on runs", async () => {
    assert.match(server.output(), /NOT LOADED: broken: Cannot load graph "broken"/);
    const info = (await (await fetch(`${server.url}/info`)).json()) as {
      graph_load_errors?: Record<string, string>;
    };
    assert.match(info.graph_load_errors?.broken ?? "", /does not exist/);
    await assert.rejects(client.runs.wait(null, "broken", { input: {} }), (error: Error) => {
      assert.match(error.message, /422/);
      assert.match(error.message, /did not load/);
      return true;
    });
    assert.equal(
      ((await client.runs.wait(null, "logged", { input: { text: "still" } })) as { reply: string }).reply,
      "logged: still",
    );
  });

  it("keeps the caller's configurable.user_id; langgraph_auth_* are the server's (empty without auth), as the official server sets them", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "echo", {
      input: { messages: [] },
      config: { configurable: { user_id: "user-7", langgraph_auth_user_id: "spoofed" } },
    });
    const configurable = (run as unknown as { kwargs: { config: { configurable: Record<string, unknown> } } })
      .kwargs.config.configurable;
    assert.equal(configurable.user_id, "user-7");
    assert.equal(configurable.langgraph_auth_user_id, "");
    assert.equal(configurable.langgraph_auth_user, null);
    assert.deepEqual(configurable.langgraph_auth_permissions, []);
    await client.runs.join(thread.thread_id, run.run_id);
  });

  it("config.recursion_limit (snake_case, as the SDK sends it) bounds the run; run_name names its root", async () => {
    const limited = await client.threads.create();
    const run = await client.runs.create(limited.thread_id, "steps", {
      input: {},
      config: { recursion_limit: 3 },
    });
    await client.runs.join(limited.thread_id, run.run_id);
    const ended = await client.runs.get(limited.thread_id, run.run_id);
    assert.equal(ended.status, "error", "8 steps cannot fit in a recursion limit of 3");
    const free = await client.threads.create();
    const ok = await client.runs.create(free.thread_id, "steps", { input: {} });
    await client.runs.join(free.thread_id, ok.run_id);
    assert.equal((await client.runs.get(free.thread_id, ok.run_id)).status, "success");

    const names: string[] = [];
    for await (const chunk of client.runs.stream(null, "echo", {
      input: { messages: [] },
      streamMode: "events",
      // Not in the SDK's Config type, but sent as given (Python clients and raw requests use it).
      config: { run_name: "my-named-run" } as never,
    })) {
      if (chunk.event === "events") {
        const data = chunk.data as { event?: string; name?: string };
        if (data.event === "on_chain_start" && data.name) names.push(data.name);
      }
    }
    assert.equal(names[0], "my-named-run");
  });

  it("assistant search by name matches _ and % literally", async () => {
    const tag = `t${Date.now()}`;
    await client.assistants.create({ graphId: "echo", name: `${tag}_x` });
    await client.assistants.create({ graphId: "echo", name: `${tag}ax` });
    const underscore = await client.assistants.search({ name: `${tag}_`, limit: 100 });
    assert.deepEqual(
      underscore.map((a) => a.name),
      [`${tag}_x`],
    );
    assert.deepEqual(await client.assistants.search({ name: `${tag}%`, limit: 100 }), []);
  });

  it("DELETE /assistants/{id}?delete_threads=true deletes the assistant's threads", async () => {
    const assistant = await client.assistants.create({ graphId: "echo", name: "short-lived" });
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, assistant.assistant_id, { input: { messages: [] } });
    const kept = await client.threads.create();
    await client.runs.wait(kept.thread_id, "echo", { input: { messages: [] } });
    await client.assistants.delete(assistant.assistant_id, { deleteThreads: true });
    await assert.rejects(client.threads.get(thread.thread_id), /404/);
    assert.equal((await client.threads.get(kept.thread_id)).thread_id, kept.thread_id);
  });

  it("invalid state updates are 4xx, never 500: an unknown as_node, messages that are not messages (issue 11 item 6)", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "echo", {
      input: { messages: [{ role: "user", content: "hi" }] },
    });
    const post = (body: unknown) =>
      fetch(`${server.url}/threads/${thread.thread_id}/state`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const unknownNode = await post({ values: { messages: [] }, as_node: "no-such-node" });
    assert.equal(unknownNode.status, 422);
    assert.match(((await unknownNode.json()) as { detail: string }).detail, /no-such-node/);
    const notMessages = await post({ values: { messages: [1, 2, { x: 1 }] } });
    assert.equal(notMessages.status, 422);
    assert.match(((await notMessages.json()) as { detail: string }).detail, /coerce message/);
    const fine = await post({ values: { messages: [{ role: "user", content: "edited" }] } });
    assert.equal(fine.status, 200, "a valid update still works");
  });

  it("404s in the official servers' words", async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    await assert.rejects(client.assistants.get(missing), /Assistant not found/);
    await assert.rejects(
      client.runs.wait(null, missing, { input: {} }),
      new RegExp(
        `No assistant found for \\\\"${missing}\\\\"\\. Make sure the assistant ID is for a valid assistant or a valid graph ID\\.`,
      ),
    );
    await assert.rejects(client.threads.get(missing), new RegExp(`Thread with ID ${missing} not found`));
  });
});
