// The agent server's own tracer (issue 30 item 4) against LangChain's (the `langsmith` SDK's
// callback tracer): the same graphs run on two `berth dev` servers, one tracing with Berth's
// tracer (the default) and one with BERTH_TRACER=sdk, both to the standalone tracing service. Each
// trace is read back through the official langsmith SDK and the two are compared run by run:
// tree, names, types, inputs, outputs, errors, tags, events, metadata, extra, serialized. The
// expected shapes (run counts, token events, the traceable's place) are those the SDK's tracer
// produced for these graphs. The drain test stops the server right after a run: its trace, still
// waiting to be batched, is sent before the process exits.
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempDir, repoRoot, type SpawnedServer, spawnBerth } from "@berth-platform/testkit";
import { type StandaloneTracing, startStandaloneTracing } from "@berth-platform/tracing";
import { Client } from "@langchain/langgraph-sdk";
import { Client as LangSmith, type Run } from "langsmith";
import pino from "pino";

const KEY = "tracing-compare-key-0123456789abcdef";
const CONFIG = path.join(repoRoot, "test/fixtures/tracing-project/graph.json");
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** Tracing variables of the test's own environment, blanked: the servers get exactly these. */
function tracingEnv(project: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of Object.keys(process.env))
    if (key.startsWith("LANGSMITH_") || key.startsWith("LANGCHAIN_")) env[key] = "";
  return {
    ...env,
    BERTH_LOG_LEVEL: "info",
    LANGSMITH_TRACING: "true",
    LANGSMITH_API_KEY: KEY,
    LANGSMITH_PROJECT: project,
    LANGCHAIN_CALLBACKS_BACKGROUND: "true",
    LANGSMITH_TENANT_ID: "tenant-of-the-test",
    ...extra,
  };
}

/**
 * A trace without what differs between two executions: ids become the runs' places ("#3:agent"),
 * times and interrupt ids go, the server's own URL is one placeholder.
 */
function comparable(runs: Run[], serverUrl: string): Record<string, unknown>[] {
  const sorted = [...runs].sort((a, b) => String(a.dotted_order).localeCompare(String(b.dotted_order)));
  const places = new Map(sorted.map((run, i) => [run.id, `#${i}:${run.name}`]));
  const scrub = (value: unknown): unknown =>
    JSON.parse(
      JSON.stringify(value ?? null)
        .split(serverUrl)
        .join("<server>")
        .replace(UUID, (id) => places.get(id) ?? "<uuid>")
        .replace(/\b[0-9a-f]{32}\b/g, "<interrupt>")
        .replace(/call_[a-z0-9_]+/g, "<tool-call>")
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?/g, "<time>"),
    );
  return sorted.map((run) => ({
    place: places.get(run.id),
    parent: run.parent_run_id ? places.get(run.parent_run_id) : null,
    depth: String(run.dotted_order).split(".").length,
    name: run.name,
    run_type: run.run_type,
    status: (run as { status?: string }).status,
    error: scrub(run.error),
    inputs: scrub(run.inputs),
    outputs: scrub(run.outputs),
    tags: scrub(run.tags),
    events: scrub(run.events),
    extra: scrub(run.extra),
    serialized: scrub(run.serialized),
    ended: run.end_time !== null && run.end_time !== undefined,
  }));
}

async function poll<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 60_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) assert.fail(`timed out; last value: ${JSON.stringify(value).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("the agent server's tracer sends what LangChain's tracer sends", () => {
  const temp = makeTempDir("berth-tracing-compare-");
  let tracing: StandaloneTracing;
  let lean: SpawnedServer;
  let sdk: SpawnedServer;
  let langsmith: LangSmith;

  before(async () => {
    tracing = await startStandaloneTracing({
      file: path.join(temp.dir, "traces.db"),
      apiKey: KEY,
      logger: pino({ level: "warn" }),
    });
    const start = (name: string, extra: Record<string, string>) =>
      spawnBerth(["dev", "--config", CONFIG, "--port", "0", "--data-dir", path.join(temp.dir, name)], {
        env: tracingEnv(name, { LANGSMITH_ENDPOINT: tracing.url, ...extra }),
        timeoutMs: 150_000,
      });
    [lean, sdk] = await Promise.all([start("lean", {}), start("sdk", { BERTH_TRACER: "sdk" })]);
    langsmith = new LangSmith({ apiUrl: tracing.url, apiKey: KEY, callerOptions: { maxRetries: 0 } });
  });

  after(async () => {
    await Promise.all([lean?.stop(), sdk?.stop()]);
    await tracing?.close();
    temp.cleanup();
  });

  it("each server says which tracer it uses", () => {
    assert.match(lean.output(), /runs are traced by the agent server's tracer/);
    assert.match(sdk.output(), /runs are traced by LangChain's tracer \(BERTH_TRACER=sdk\)/);
  });

  /** The trace of an agent run of this project, once `count` runs of it have arrived and its root ended. */
  async function traceOf(project: string, runId: string, count: number): Promise<Run[]> {
    return poll(
      async () => {
        const runs: Run[] = [];
        for await (const run of langsmith.listRuns({ projectName: project })) runs.push(run);
        const root = runs.find((r) => !r.parent_run_id && r.extra?.metadata?.run_id === runId);
        return root ? runs.filter((r) => r.trace_id === root.trace_id) : [];
      },
      (runs) => runs.length >= count && runs.some((r) => !r.parent_run_id && r.end_time),
    );
  }

  /** Runs the same input on both servers; answers both traces, comparable. */
  async function both(graph: string, input: unknown, count: number, streamMode: string[] = ["values"]) {
    const traces: Record<string, ReturnType<typeof comparable>> = {};
    for (const [project, server] of [
      ["lean", lean],
      ["sdk", sdk],
    ] as const) {
      const client = new Client({ apiUrl: server.url });
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, graph, {
        input,
        streamMode: streamMode as never,
      });
      await client.runs.join(thread.thread_id, run.run_id);
      const runs = await traceOf(project, run.run_id, count);
      assert.equal(runs.length, count, `${project}: ${runs.map((r) => r.name).join(", ")}`);
      traces[project] = comparable(runs, server.url);
    }
    assert.deepEqual(traces.lean, traces.sdk);
    return traces.lean as ReturnType<typeof comparable>;
  }

  it("the example ReAct agent: graph, nodes, model calls with usage and invocation params, the tool call", async () => {
    const trace = await both("agent", { messages: [{ role: "user", content: "What is (6 + 1) * 6?" }] }, 10);
    assert.deepEqual(
      trace.map((r) => `${r.parent ?? "-"} > ${r.name}/${r.run_type}`),
      [
        "- > react-agent/chain",
        "#0:react-agent > __start__/chain",
        "#0:react-agent > agent/chain",
        "#2:agent > ScriptedChatModel/llm",
        "#2:agent > RunnableLambda/chain",
        "#0:react-agent > tools/chain",
        "#5:tools > calculator/tool",
        "#0:react-agent > agent/chain",
        "#7:agent > ScriptedChatModel/llm",
        "#7:agent > RunnableLambda/chain",
      ],
    );
    const model = trace[3] as { extra: { metadata: Record<string, unknown>; invocation_params?: unknown } };
    assert.deepEqual(model.extra.metadata.usage_metadata, {
      input_tokens: 7,
      output_tokens: 5,
      total_tokens: 12,
      input_token_details: {},
      output_token_details: {},
    });
    assert.ok("invocation_params" in model.extra, JSON.stringify(model.extra));
    assert.equal(model.extra.metadata.LANGSMITH_TENANT_ID, "tenant-of-the-test");
    const tool = trace[6] as { extra: { tool_call_id?: string }; outputs: unknown };
    assert.equal(tool.extra.tool_call_id, "<tool-call>");
    assert.match(JSON.stringify(tool.outputs), /42/);
  });

  it("a user's traceable inside a node nests under the node", async () => {
    const trace = await both("traced", { question: " Why? " }, 5);
    assert.deepEqual(
      trace.map((r) => `${r.parent ?? "-"} > ${r.name}/${r.run_type}`),
      [
        "- > LangGraph/chain",
        "#0:LangGraph > __start__/chain",
        "#0:LangGraph > research/chain",
        "#2:research > lookup/retriever",
        "#3:lookup > normalise/chain",
      ],
    );
    assert.deepEqual(trace[4]?.outputs, { outputs: "why?" });
  });

  it("a streaming chat model: its run records each token", async () => {
    const trace = await both("chat", { messages: [{ role: "user", content: "Hi" }] }, 4, [
      "values",
      "messages",
    ]);
    const model = trace.find((r) => r.run_type === "llm") as { events: Array<{ name: string }> };
    const tokens = model.events.filter((e) => e.name === "new_token");
    assert.ok(tokens.length >= 2, JSON.stringify(model.events));
    assert.equal(model.events[0]?.name, "start");
    assert.equal(model.events.at(-1)?.name, "end");
  });

  it("a node that throws: the node and the graph end in error", async () => {
    const trace = await both("fails", { value: 1 }, 3);
    const [root, , node] = trace;
    assert.equal(node?.status, "error");
    assert.match(String(node?.error), /the fixture node failed on purpose/);
    assert.equal(root?.status, "error");
  });

  it("an interrupt: the node ends with GraphInterrupt, the graph's run ends", async () => {
    const trace = await both("asks", { question: "Go on?" }, 3);
    const node = trace.find((r) => r.name === "ask");
    assert.match(String(node?.error), /GraphInterrupt/);
    assert.ok(trace[0]?.ended);
  });

  it("stopping the server sends the traces still waiting to be batched", async () => {
    const client = new Client({ apiUrl: lean.url });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "agent", {
      input: { messages: [{ role: "user", content: "What is 2 + 2?" }] },
    });
    await client.runs.join(thread.thread_id, run.run_id);
    // At once: the trace is still in the sender's batch window.
    assert.equal(await lean.stop("SIGTERM"), 0);
    const runs: Run[] = [];
    for await (const r of langsmith.listRuns({ projectName: "lean" })) runs.push(r);
    const root = runs.find((r) => !r.parent_run_id && r.extra?.metadata?.run_id === run.run_id);
    assert.ok(root, "the last run's trace arrived before the server exited");
    assert.ok(root.end_time);
    assert.equal(runs.filter((r) => r.trace_id === root.trace_id).length, 10);
  });
});
