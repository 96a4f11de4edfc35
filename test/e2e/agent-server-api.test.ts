// Threads, assistants, system routes and error handling, through the SDK and raw HTTP.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { describe, it } from "node:test";
import { systemAssistantId } from "@berth-platform/agent-server";
import { FIXTURE_CONFIG, statusOf, useFixtureServer } from "./helpers.js";

const ctx = useFixtureServer();

async function http(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${ctx.server().url}${path}`, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

/**
 * Declares an 11 MiB body and streams it over a raw socket: the server must answer 413 from the
 * declared length, before the body is read (Node's http client would not show an early answer).
 */
function oversizedPost(path: string): Promise<number> {
  const url = new URL(`${ctx.server().url}${path}`);
  const size = 11 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(
        `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
      );
      socket.write(Buffer.alloc(64 * 1024, 0x20));
    });
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString();
      const status = received.match(/^HTTP\/1\.1 (\d{3})/)?.[1];
      if (status) {
        socket.destroy();
        resolve(Number(status));
      }
    });
    socket.on("error", reject);
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error("no answer to an oversized body"));
    });
  });
}

describe("threads", () => {
  it("POST /threads with an empty body creates an idle thread with null values", async () => {
    for (const body of [undefined, "", "{}"]) {
      const { status, body: thread } = await http("POST", "/threads", body);
      assert.equal(status, 200);
      assert.equal(thread?.status, "idle");
      assert.equal(thread?.values, null);
      assert.deepEqual(thread?.metadata, {});
      for (const key of ["thread_id", "created_at", "updated_at", "config"]) assert.ok(key in (thread ?? {}));
    }
  });

  it("takes thread_id, metadata and if_exists", async () => {
    const client = ctx.client();
    const id = randomUUID();
    const thread = await client.threads.create({ threadId: id, metadata: { owner: "ann" } });
    assert.equal(thread.thread_id, id);
    assert.deepEqual(thread.metadata, { owner: "ann" });
    assert.equal(await statusOf(client.threads.create({ threadId: id })), 409);
    const same = await client.threads.create({ threadId: id, ifExists: "do_nothing" });
    assert.deepEqual(same.metadata, { owner: "ann" });
    assert.equal((await client.threads.get(id)).thread_id, id);
  });

  it("a run on an unknown thread is 404, unless if_not_exists is create", async () => {
    const client = ctx.client();
    const id = randomUUID();
    const input = { messages: [{ role: "user", content: "x" }] };
    assert.equal(await statusOf(client.runs.create(id, "echo", { input })), 404);
    const run = await client.runs.create(id, "echo", { input, ifNotExists: "create" });
    await client.runs.join(id, run.run_id);
    const thread = await client.threads.get(id);
    assert.equal(thread.metadata?.graph_id, "echo");
  });

  it("the state of a thread that never ran is empty", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    const state = await client.threads.getState(thread.thread_id);
    assert.deepEqual(state.values, {});
    assert.deepEqual(state.next, []);
  });
});

describe("assistants", () => {
  it("each graph has a system assistant reachable by graph id and by its uuid5", async () => {
    const client = ctx.client();
    const byName = await client.assistants.get("agent");
    assert.equal(byName.assistant_id, systemAssistantId("agent"));
    assert.equal(byName.assistant_id, "fe096781-5601-53d2-b2f6-0d3403f7e9ca");
    assert.deepEqual(await client.assistants.get(byName.assistant_id), byName);
    assert.equal(byName.graph_id, "agent");
    assert.deepEqual(byName.metadata, { created_by: "system" });
    const all = await client.assistants.search({ limit: 100 });
    const graphs = Object.keys(JSON.parse(readFileSync(FIXTURE_CONFIG, "utf8")).graphs as object).sort();
    assert.deepEqual(all.map((a) => a.graph_id).sort(), graphs);
    const one = await client.assistants.search({ graphId: "slow" });
    assert.equal(one.length, 1);
    assert.equal(await statusOf(client.assistants.get(randomUUID())), 404);
  });
});

describe("errors", () => {
  it("unknown ids are 404 with {detail}", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    assert.equal(await statusOf(client.threads.get(randomUUID())), 404);
    assert.equal(await statusOf(client.runs.get(thread.thread_id, randomUUID())), 404);
    assert.equal(await statusOf(client.runs.join(thread.thread_id, randomUUID())), 404);
    assert.equal(await statusOf(client.runs.list(randomUUID())), 404);
    assert.equal(await statusOf(client.runs.create(thread.thread_id, "no-such-graph", { input: {} })), 404);
    const { status, body } = await http("GET", `/threads/${randomUUID()}`);
    assert.equal(status, 404);
    assert.match(String(body?.detail), /not found/);
  });

  it("malformed JSON, wrong types, bad enums and huge bodies are 4xx {detail}, never 500", async () => {
    const thread = await ctx.client().threads.create();
    const runs = `/threads/${thread.thread_id}/runs`;
    const cases: Array<[string, string | undefined, number]> = [
      [runs, "{not json", 422],
      [runs, "[]", 422],
      [runs, '{"assistant_id": 5}', 422],
      [runs, '{"assistant_id": "agent", "multitask_strategy": "sometimes"}', 422],
      [runs, '{"assistant_id": "agent", "after_seconds": -1}', 422],
      [runs, '{"assistant_id": "agent", "webhook": "ftp://x"}', 422],
      [runs, '{"assistant_id": "agent", "__proto__": {"polluted": true}}', 422],
      ["/threads", '{"thread_id": "not-a-uuid"}', 422],
      ["/threads", '{"if_exists": "maybe"}', 422],
      ["/threads", '"just a string"', 422],
    ];
    for (const [path, body, expected] of cases) {
      const result = await http("POST", path, body);
      assert.equal(
        result.status,
        expected,
        `${path} ${body?.slice(0, 80)} -> ${JSON.stringify(result.body)}`,
      );
      assert.equal(typeof result.body?.detail, "string");
    }
    assert.equal(await oversizedPost(runs), 413, "a body over the limit is refused before it is read");
    assert.equal((await http("GET", "/threads/not-a-uuid")).status, 422);
    assert.equal((await http("GET", `/threads/${thread.thread_id}/runs?limit=-3`)).status, 422);
    assert.equal((await http("GET", "/nowhere")).status, 404);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe("system", () => {
  it("/ok and /info answer", async () => {
    assert.deepEqual((await http("GET", "/ok")).body, { ok: true });
    const info = (await http("GET", "/info")).body;
    assert.equal(typeof info?.version, "string");
    const flags = info?.flags as Record<string, unknown>;
    assert.equal(flags.assistants, true);
    assert.equal(flags.crons, true, "crons are served");
  });

  it("/metrics exposes queue depth, running runs and finished runs (Prometheus text and JSON)", async () => {
    const client = ctx.client();
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "echo", {
      input: { messages: [{ role: "user", content: "m" }] },
    });
    const response = await fetch(`${ctx.server().url}/metrics`);
    assert.match(response.headers.get("content-type") ?? "", /text\/plain/);
    const text = await response.text();
    assert.match(text, /^lg_api_num_pending_runs \d+$/m);
    assert.match(text, /^lg_api_num_running_runs \d+$/m);
    assert.match(text, /^lg_api_runs_finished_total\{status="success"\} [1-9]\d*$/m);
    assert.match(text, /^lg_api_run_duration_seconds_count\{status="success"\} [1-9]\d*$/m);
    const json = (await (await fetch(`${ctx.server().url}/metrics?format=json`)).json()) as {
      queue: { n_pending: number; n_running: number };
      workers: { max: number };
    };
    assert.equal(typeof json.queue.n_pending, "number");
    assert.equal(json.workers.max, 10);
  });

  it("run creation sets Content-Location", async () => {
    const thread = await ctx.client().threads.create();
    const response = await fetch(`${ctx.server().url}/threads/${thread.thread_id}/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "echo", input: { messages: [] } }),
    });
    const run = (await response.json()) as { run_id: string };
    assert.equal(response.headers.get("content-location"), `/threads/${thread.thread_id}/runs/${run.run_id}`);
  });
});
