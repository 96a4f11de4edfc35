// Every route of the agent server under 5,000+ malformed or hostile requests (issue 11): wrong
// types, NUL, prototype keys, JSON nested thousands deep, truncated bodies, odd ids and queries.
// No answer may be a 5xx. The server runs in this process on the test fixture graphs.
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempDir, malformedBody, mutate, pick, prng, repoRoot, routesOf } from "@berth-platform/testkit";
import pino from "pino";
import { parseAgentServerConfig } from "../src/config.js";
import { type AgentServer, startAgentServer } from "../src/server.js";

const temp = makeTempDir("berth-agent-fuzz-");
let server: AgentServer;

describe("agent server fuzz", () => {
  before(async () => {
    const config = parseAgentServerConfig({
      flags: {
        config: path.join(repoRoot, "test/fixtures/graphs/graph.json"),
        port: 0,
        dataDir: temp.dir,
        jobsPerWorker: 4,
      },
      // No TypeScript-type parse at start-up (seconds of CPU in a worker thread of this process).
      env: { BERTH_LOG_LEVEL: "silent", BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "0", BERTH_SCHEMA_WARMUP: "0" },
      cwd: repoRoot,
    });
    server = await startAgentServer(config, { processEnv: {}, logger: pino({ level: "silent" }) });
  });
  after(async () => {
    await server?.close();
    temp.cleanup();
  });

  it("every route: 5,000+ malformed requests, none answered ≥ 500 (issue 11)", async () => {
    const app = server.app;
    const rand = prng(20261124);
    const routes = routesOf(app.printRoutes({ commonPrefix: false }));
    assert.ok(routes.length >= 35, `routes found: ${routes.length}`);
    const json = async (method: string, url: string, body?: unknown) =>
      (
        await app.inject({
          method: method as "POST",
          url,
          ...(body === undefined ? {} : { payload: body as object }),
        })
      ).json() as Record<string, string>;
    const thread = await json("POST", "/threads", {});
    const run = await json("POST", `/threads/${thread.thread_id}/runs/wait`, {
      assistant_id: "echo",
      input: { messages: [{ role: "user", content: "hi" }] },
    });
    assert.ok(run, "a seed run ended");
    const runs = (
      await app.inject({ method: "GET", url: `/threads/${thread.thread_id}/runs` })
    ).json() as Array<{
      run_id: string;
    }>;
    const assistant = await json("POST", "/assistants", { graph_id: "echo" });
    const cron = await json("POST", "/runs/crons", { assistant_id: "echo", schedule: "0 0 1 1 *" });
    const zero = "00000000-0000-4000-8000-000000000000";
    const ids: Record<string, string[]> = {
      thread_id: [thread.thread_id ?? zero, thread.thread_id ?? zero, zero, "%00", "x".repeat(300)],
      run_id: [runs[0]?.run_id ?? zero, zero, "not-a-uuid"],
      assistant_id: ["echo", assistant.assistant_id ?? zero, zero, "%FF"],
      cron_id: [cron.cron_id ?? zero, zero, "?"],
      checkpoint_id: [zero, "x"],
    };
    const templates: Array<Record<string, unknown>> = [
      {
        assistant_id: "echo",
        input: { messages: [{ role: "user", content: "x" }] },
        stream_mode: ["values"],
      },
      { assistant_id: "echo", input: null, metadata: { a: 1 }, config: { configurable: { k: 1 } } },
      { metadata: { a: "b" }, if_exists: "do_nothing", thread_id: zero },
      { graph_id: "echo", name: "n", config: {}, context: {} },
      { namespace: ["a", "b"], key: "k", value: { v: 1 }, ttl: 1 },
      { namespace_prefix: ["a"], filter: { v: 1 }, limit: 5, offset: 0, query: "q" },
      { values: { count: 1 }, checkpoint: { checkpoint_id: zero } },
      // State updates a graph refuses (issue 11 item 6): an unknown node, messages that are not messages.
      { values: { messages: [1, { x: 1 }, "y"] }, as_node: "no-such-node" },
      { values: { messages: [{ role: "user", content: "ok" }] }, as_node: "model" },
      { schedule: "* * * * *", assistant_id: "echo", input: {} },
      { limit: 10, offset: 0, status: "idle", metadata: {}, sort_by: "created_at" },
    ];
    const extra = [
      "extra",
      "webhook",
      "multitask_strategy",
      "on_disconnect",
      "after_seconds",
      "checkpoint_id",
      "__proto__",
      "interrupt_before",
      "stream_resumable",
      "durability",
      "as_node",
    ];
    const statuses = new Map<number, number>();
    const perRoute = new Set<string>();
    const total = Math.max(5_000, routes.length * 130);
    for (let i = 0; i < total; i += 1) {
      const route = routes[i % routes.length] as { method: string; path: string };
      const url =
        route.path.replace(/:([a-z_]+)/g, (_m, name: string) => pick(rand, ids[name] ?? [zero, "x"])) +
        (rand() < 0.3
          ? `?${pick(rand, ["limit=-1", "offset=1e99", "stream_mode=%FF", "a[b]=c", "x=%00", "cancel_on_disconnect=maybe", "wait=2"])}`
          : "");
      const body =
        rand() < 0.25 ? malformedBody(rand) : JSON.stringify(mutate(rand, pick(rand, templates), extra));
      const res = await app.inject({
        method: route.method as "GET",
        url,
        headers: {
          "content-type": pick(rand, [
            "application/json",
            "application/json",
            "text/plain",
            "application/x-www-form-urlencoded",
          ]),
          ...(rand() < 0.2 ? { "last-event-id": pick(rand, ["-1", "abc", "99999999999999999999"]) } : {}),
        },
        ...(route.method === "GET" || route.method === "DELETE" ? {} : { payload: body }),
      });
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      perRoute.add(`${route.method} ${route.path}`);
      assert.ok(
        res.statusCode < 500,
        `${route.method} ${url} → ${res.statusCode}: ${res.body.slice(0, 300)} for ${body.slice(0, 300)}`,
      );
    }
    if (process.env.BERTH_PRINT_ROUTES) console.log(routes.length, total, JSON.stringify([...statuses]));
    assert.equal(perRoute.size, routes.length, "every route was exercised");
    assert.ok((statuses.get(422) ?? 0) > 500, JSON.stringify([...statuses]));
  });
});
