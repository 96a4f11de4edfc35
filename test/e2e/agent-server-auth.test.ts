// Custom auth (graph.json auth.path with the SDK's Auth helper): authentication, owner metadata,
// per-user visibility (404 for others' threads), denials (403), and the caller on the run record.
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempDir, repoRoot, type SpawnedServer, spawnBerth } from "@berth-platform/testkit";
import { Client } from "@langchain/langgraph-sdk";
import { statusOf } from "./helpers.js";

const config = path.join(repoRoot, "test/fixtures/auth-project/graph.json");
const temp = makeTempDir();
let server: SpawnedServer | undefined;
const as = (token?: string) =>
  new Client({
    apiUrl: server?.url ?? "",
    defaultHeaders: token ? { Authorization: `Bearer ${token}` } : {},
    callerOptions: { maxRetries: 0 },
  });

describe("custom auth", () => {
  before(async () => {
    server = await spawnBerth(["dev", "--config", config, "--port", "0", "--data-dir", temp.dir]);
  });
  after(async () => {
    await server?.stop();
    temp.cleanup();
  });

  it("refuses requests without a valid token; health stays public", async () => {
    assert.equal(await statusOf(as().threads.create()), 401);
    assert.equal(await statusOf(as("token-mallory").threads.create()), 401);
    const response = await fetch(`${server?.url}/threads`, { method: "POST" });
    assert.equal(response.status, 401);
    assert.match(((await response.json()) as { detail: string }).detail, /Invalid or missing token/);
    assert.equal((await fetch(`${server?.url}/ok`)).status, 200);
  });

  it("owners see their threads; others get 404 and do not find them in searches", async () => {
    const alice = as("token-alice");
    const bob = as("token-bob");
    const thread = await alice.threads.create({ metadata: { topic: "secret plans" } });
    assert.equal(thread.metadata?.owner, "alice");
    assert.equal((await alice.threads.get(thread.thread_id)).thread_id, thread.thread_id);
    assert.equal(await statusOf(bob.threads.get(thread.thread_id)), 404);
    assert.equal(await statusOf(bob.threads.getState(thread.thread_id)), 404);
    assert.equal(await statusOf(bob.threads.update(thread.thread_id, { metadata: { hijacked: true } })), 404);
    assert.equal(await statusOf(bob.runs.create(thread.thread_id, "echo", { input: { messages: [] } })), 404);
    assert.equal(await statusOf(bob.runs.list(thread.thread_id)), 404);
    assert.equal(await statusOf(bob.threads.delete(thread.thread_id)), 404);
    const bobs = await bob.threads.search({ limit: 100 });
    assert.ok(!bobs.some((t) => t.thread_id === thread.thread_id), "bob's search hides alice's thread");
    assert.ok(bobs.every((t) => t.metadata?.owner === "bob"));
    const alices = await alice.threads.search({ limit: 100 });
    assert.ok(alices.some((t) => t.thread_id === thread.thread_id));
    assert.equal(await bob.threads.count(), bobs.length);
  });

  it("runs carry the authenticated user", async () => {
    const alice = as("token-alice");
    const thread = await alice.threads.create();
    const run = await alice.runs.create(thread.thread_id, "echo", {
      input: { messages: [{ role: "user", content: "hi" }] },
    });
    await alice.runs.join(thread.thread_id, run.run_id);
    const configurable = (run as unknown as { kwargs: { config: { configurable: Record<string, unknown> } } })
      .kwargs.config.configurable;
    assert.equal(configurable.user_id, "alice");
    assert.equal(configurable.langgraph_auth_user_id, "alice");
    assert.deepEqual(configurable.langgraph_auth_permissions, ["read", "write"]);
    assert.equal(run.metadata?.owner, "alice");
    assert.equal((await alice.runs.get(thread.thread_id, run.run_id)).status, "success");
  });

  it("a handler returning false is a 403", async () => {
    const viewer = as("token-viewer");
    const thread = await viewer.threads.create();
    assert.equal(await statusOf(viewer.threads.delete(thread.thread_id)), 403);
    assert.equal(await statusOf(viewer.store.putItem(["notes"], "k", { v: 1 })), 403);
    await as("token-alice").store.putItem(["notes"], "k", { v: 1 });
  });
});
