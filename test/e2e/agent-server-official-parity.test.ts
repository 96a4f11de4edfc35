// Issue 29: the last differences from the official JS server, each seen through the official SDK on
// a project shaped like the official server's own test graphs (test/fixtures/official-graphs-project:
// its own node_modules, langgraph.json with env LANGGRAPH_CONFIG and http.app, unchanged).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { makeTempDir, spawnBerth } from "@berth-platform/testkit";
import { Client } from "@langchain/langgraph-sdk";
import { Agent, fetch as undiciFetch } from "undici";
import { useOwnDepsServer } from "./own-deps-helpers.js";

type Message = { type?: string; content: unknown; id?: string };
type Chunk = { event: string; data: unknown };

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of stream) out.push(item);
  return out;
}

/** The messages of the last `values` event that has them (an interrupt ends with `{__interrupt__: []}`). */
const lastValues = (chunks: Chunk[]) =>
  (
    chunks.findLast((c) => c.event === "values" && "messages" in (c.data as object))?.data as
      | { messages: Message[] }
      | undefined
  )?.messages ?? [];

// berth dev as a user starts it: the default number of processes (not the tests' usual 1).
const project = useOwnDepsServer("official", { BERTH_WORKERS: "" });

describe("differences from the official JS server (issue 29)", () => {
  const client = () => project.client();
  const url = (p: string) => `${project.server().url}${p}`;

  it("human in the loop - modification: a state update replacing the last AI message by id ends with 4 messages", async () => {
    // Each request on a connection of its own, as concurrent clients and browsers send them: every
    // request may reach another server process. The graph keeps one model per thread in its
    // module, as the official test graph does; the official dev server is one process.
    const fresh = (input: Parameters<typeof fetch>[0], init?: RequestInit) =>
      undiciFetch(input as string, {
        ...(init as object),
        dispatcher: new Agent(),
      }) as unknown as Promise<Response>;
    const client = () => new Client({ apiUrl: project.server().url, callerOptions: { fetch: fresh } });
    const assistant = await client().assistants.create({ graphId: "agent" });
    const thread = await client().threads.create();
    const input = { messages: [{ type: "human", content: "foo", id: "initial-message" }] };
    let chunks = (await collect(
      client().runs.stream(thread.thread_id, assistant.assistant_id, { input, interruptBefore: ["tool"] }),
    )) as Chunk[];
    assert.deepEqual(
      chunks.filter((c) => c.event === "error"),
      [],
    );
    const last = lastValues(chunks).at(-1);
    assert.ok(last, "the interrupted run streamed its messages");
    assert.equal(last.content, "begin");
    // The official test edits the message it received and sends it back, with no as_node.
    last.content = "modified";
    await client().threads.updateState(thread.thread_id, { values: { messages: [last] } });
    await client().threads.update(thread.thread_id, { metadata: { modified: true } });
    const modified = await client().threads.get(thread.thread_id);
    assert.equal(modified.status, "interrupted");
    assert.equal(modified.metadata?.modified, true);
    const state = await client().threads.getState<{ messages: Message[] }>(thread.thread_id);
    assert.equal(state.values.messages.length, 2);
    assert.equal(state.values.messages.at(-1)?.content, "modified");
    assert.deepEqual(state.next, ["tool"]);
    assert.equal(state.tasks.length, 1);
    assert.equal(state.tasks[0]?.name, "tool");

    chunks = (await collect(
      client().runs.stream(thread.thread_id, assistant.assistant_id, { input: null }),
    )) as Chunk[];
    assert.deepEqual(
      chunks.filter((c) => c.event === "error"),
      [],
    );
    assert.equal((await client().threads.get(thread.thread_id)).status, "idle");
    const messages = lastValues(chunks);
    assert.deepEqual(
      messages.map((m) => m.content),
      ["foo", "modified", "tool_call__modified", "end"],
    );
    const history = await client().threads.getHistory<{ messages: Message[] }>(thread.thread_id);
    assert.equal(history.length, 6);
    assert.equal(history[0]?.next.length, 0);
    assert.equal(history[0]?.values.messages.length, 4);
    assert.deepEqual(history.at(-1)?.next, ["__start__"]);
  });

  it("new Client() with no apiUrl in the project's http.app reaches the server itself (/custom/client), as on the official server", async () => {
    const response = await fetch(url("/custom/client"));
    assert.equal(response.status, 200, await response.clone().text());
    const body = (await response.json()) as { result: { messages: Message[] } };
    assert.equal(body.result.messages.at(-1)?.content, "answered 1 message(s)");
  });

  it("new Client() with no apiUrl in graph code reaches the server itself, and LANGGRAPH_API_URL names it", async () => {
    const result = (await client().runs.wait(null, "client_caller", { input: {} })) as {
      reply?: string;
      apiUrl?: string;
    };
    assert.equal(result.reply, "answered 1 message(s)");
    assert.equal(result.apiUrl, project.server().url);
  });

  it("a webhook that is a path (/custom/webhook) is delivered to the server's own http.app, as on the official server", async () => {
    const thread = await client().threads.create();
    const run = await client().runs.create(thread.thread_id, "agent_simple", {
      input: { messages: [{ role: "human", content: "hook" }] },
      webhook: "/custom/webhook",
    });
    await client().runs.join(thread.thread_id, run.run_id);
    type Payload = { run_id?: string; status?: string } | null;
    const received = async () => (await (await fetch(url("/custom/webhook-payload"))).json()) as Payload;
    let payload = await received();
    // Delivered in the background after the run: up to 20 s on a loaded machine.
    for (let i = 0; i < 400 && payload?.run_id !== run.run_id; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      payload = await received();
    }
    assert.equal(payload?.run_id, run.run_id);
    assert.equal(payload?.status, "success");
    // A protocol-relative or schemeless string is still no URL.
    await assert.rejects(
      client().runs.create(thread.thread_id, "agent_simple", { input: {}, webhook: "//elsewhere/hook" }),
      /422/,
    );
  });

  it("config from env: LANGGRAPH_CONFIG in langgraph.json env gives the system assistants their config and context", async () => {
    const [agent] = await client().assistants.search({
      graphId: "agent",
      metadata: { created_by: "system" },
    });
    assert.deepEqual(agent?.config, { configurable: { model_name: "openai" } });
    const [runtime] = await client().assistants.search({
      graphId: "simple_runtime",
      metadata: { created_by: "system" },
    });
    assert.deepEqual(runtime?.context, { model: "unknown" });
    // Runs of the system assistant get them.
    const state = (await client().runs.wait(null, "simple_runtime", { input: { message: "hi" } })) as {
      model?: string;
    };
    assert.equal(state.model, "unknown");
  });

  it("schemas: config_schema lists the configurable fields (draft-07), context_schema the context's enum, as the official parser emits", async () => {
    type Json = { type?: string; properties?: Record<string, Json>; $schema?: string; enum?: string[] };
    const created = await client().assistants.create({ graphId: "agent" });
    for (const id of ["agent", created.assistant_id]) {
      const schemas = await client().assistants.getSchemas(id);
      const config = schemas.config_schema as Json;
      assert.equal(config.type, "object");
      assert.deepEqual(config.properties?.model_name, { type: "string" });
      assert.equal(config.$schema, "http://json-schema.org/draft-07/schema#");
      assert.ok(schemas.input_schema && schemas.output_schema && schemas.state_schema);
    }
    const runtime = await client().assistants.getSchemas("simple_runtime");
    for (const schema of [runtime.config_schema, runtime.context_schema] as Json[]) {
      assert.deepEqual(schema.properties?.model?.enum, ["anthropic", "openai", "unknown"]);
    }
  });

  it("get subgraphs: entries carry the parser's state/input/output/config, with and without recurse, as on the official server", async () => {
    type Json = { type?: string; properties?: Record<string, Json>; enum?: string[] };
    const assistant = await client().assistants.create({ graphId: "nested" });
    const direct = await client().assistants.getSubgraphs(assistant.assistant_id);
    assert.deepEqual(Object.keys(direct), ["gp_two"]);
    const all = (await client().assistants.getSubgraphs(assistant.assistant_id, {
      recurse: true,
    })) as unknown as Record<string, Record<string, Json>>;
    assert.deepEqual(Object.keys(all), ["gp_two", "gp_two|p_two"]);
    const expected: Record<string, [string, string[]]> = {
      gp_two: ["parent", ["parent_one", "parent_two"]],
      "gp_two|p_two": ["child", ["child_one", "child_two"]],
    };
    for (const [ns, [field, values]] of Object.entries(expected)) {
      const entry = all[ns] ?? {};
      for (const key of ["state", "input", "output", "config"]) assert.ok(key in entry, `${ns} has ${key}`);
      assert.equal(entry.state?.type, "object");
      assert.deepEqual(entry.state?.properties?.[field], { type: "string", enum: values });
      assert.equal(entry.state?.properties?.messages?.type, "array");
      // The SDK's Subgraphs type names the same schema state_schema.
      assert.deepEqual(entry.state_schema, entry.state);
    }
  });

  it("subgraph human in the loop: the event sequence of runs.stream, interrupt and resume, is the official one", async () => {
    // Messages reduced to what both servers' dicts share (Berth keeps the production server's
    // extra fields, name and example); namespaced events to their mode and the subgraph's name.
    const human = { type: "human", content: "SF", id: "initial-message" };
    const sunny = { type: "ai", content: "It's sunny in San Francisco!" };
    const reduce = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(reduce);
      if (typeof value !== "object" || value === null) return value;
      const record = value as Record<string, unknown>;
      if (typeof record.type === "string" && "content" in record) {
        return record.type === "human"
          ? { type: record.type, content: record.content, id: record.id }
          : { type: record.type, content: record.content };
      }
      return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, reduce(v)]));
    };
    const sequence = (chunks: Chunk[]) =>
      chunks.map((c) => ({
        event: c.event.replace(/\|weather_graph:[0-9a-f-]+$/, "|weather_graph:<task>"),
        data: c.event === "metadata" ? Object.keys(c.data as object).sort() : reduce(c.data),
      }));
    const assistant = await client().assistants.create({ graphId: "weather" });
    const thread = await client().threads.create();
    const first = (await collect(
      client().runs.stream(thread.thread_id, assistant.assistant_id, {
        input: { messages: [{ role: "human", content: "SF", id: "initial-message" }] },
        interruptBefore: ["tool"],
      }),
    )) as Chunk[];
    assert.deepEqual(sequence(first), [
      { event: "metadata", data: ["attempt", "run_id"] },
      { event: "values", data: { messages: [human] } },
      { event: "values", data: { messages: [human], route: "weather" } },
      { event: "values", data: { __interrupt__: [] } },
    ]);
    const state = await client().threads.getState(thread.thread_id);
    assert.deepEqual(state.next, ["weather_graph"]);
    const [task] = state.tasks as unknown as Array<Record<string, unknown>>;
    assert.deepEqual(
      { ...task, id: typeof task?.id, checkpoint: Object.keys((task?.checkpoint as object) ?? {}).sort() },
      {
        id: "string",
        name: "weather_graph",
        path: ["__pregel_pull", "weather_graph"],
        error: null,
        interrupts: [],
        checkpoint: ["checkpoint_ns", "thread_id"],
        state: null,
        result: null,
      },
    );
    assert.match(
      String((task?.checkpoint as { checkpoint_ns?: string } | undefined)?.checkpoint_ns),
      /^weather_graph:/,
    );
    assert.equal((await client().threads.get(thread.thread_id)).status, "interrupted");

    const second = (await collect(
      client().runs.stream(thread.thread_id, assistant.assistant_id, {
        input: null,
        streamMode: ["values", "updates"],
        streamSubgraphs: true,
      }),
    )) as Chunk[];
    assert.deepEqual(sequence(second), [
      { event: "metadata", data: ["attempt", "run_id"] },
      { event: "values", data: { messages: [human], route: "weather" } },
      { event: "values|weather_graph:<task>", data: { messages: [human], city: "San Francisco" } },
      { event: "updates|weather_graph:<task>", data: { weather_node: { messages: [sunny] } } },
      { event: "values|weather_graph:<task>", data: { messages: [human, sunny], city: "San Francisco" } },
      { event: "updates", data: { weather_graph: { messages: [human, sunny] } } },
      { event: "values", data: { messages: [human, sunny], route: "weather" } },
    ]);
    assert.equal((await client().threads.get(thread.thread_id)).status, "idle");
  });
});

describe("schemas ready before anyone asks (issue 29)", () => {
  // Servers of their own on the same installed project, parsing at start-up.
  const temp = makeTempDir("berth-schemas-");
  after(() => temp.cleanup());
  const dataDir = () => path.join(temp.dir, "data");
  const start = (env: Record<string, string>) =>
    spawnBerth(
      [
        "dev",
        "--config",
        path.join(project.projectDir, "langgraph.json"),
        "--port",
        "0",
        "--data-dir",
        dataDir(),
      ],
      { cwd: project.projectDir, timeoutMs: 60_000, env },
    );
  const cached = () => {
    const dir = path.join(dataDir(), "schemas");
    return fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.startsWith("agent@")) : [];
  };
  const configOf = async (url: string) =>
    ((await new Client({ apiUrl: url }).assistants.getSchemas("agent")).config_schema ?? null) as {
      properties?: Record<string, unknown>;
    } | null;

  it("parses the TypeScript types at start-up with no request, keeps them on disk, and a restart with unchanged files does not parse again", async () => {
    const first = await start({ BERTH_SCHEMA_WARMUP: "1" });
    try {
      // Nobody asks; the parse is done in the background (seconds; minutes on a loaded machine).
      const deadline = Date.now() + 240_000;
      while (cached().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
      assert.equal(cached().length, 1, "the schemas of graph agent are cached without any request");
      assert.deepEqual((await configOf(first.url))?.properties?.model_name, { type: "string" });
    } finally {
      await first.stop();
    }
    // A parse now would time out at once: typed schemas can only come from the cache.
    const second = await start({ LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS: "100" });
    try {
      assert.deepEqual((await configOf(second.url))?.properties?.model_name, { type: "string" });
    } finally {
      await second.stop();
    }
  });

  it("a changed file is a miss: the cache is keyed by the content of the project's files", async () => {
    const file = path.join(project.projectDir, "src/agent.ts");
    const original = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, `${original}\n// changed\n`);
    const server = await start({ LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS: "100" });
    try {
      // The parse this needs times out (100 ms): untyped, so not read from the entry of before.
      assert.equal((await configOf(server.url))?.properties?.model_name, undefined);
    } finally {
      await server.stop();
      fs.writeFileSync(file, original);
    }
  });
});
