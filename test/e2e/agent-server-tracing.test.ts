// The agent server's own tracer (issue 30 item 4) against LangChain's (the `langsmith` SDK's
// callback tracer): the same graphs run on two `berth dev` servers, one tracing with Berth's
// tracer (the default) and one with BERTH_TRACER=sdk, both to the standalone tracing service. Each
// trace is read back through the official langsmith SDK and the two are compared run by run:
// tree, names, types, inputs, outputs, errors, tags, events, metadata, extra, serialized. The
// expected shapes (run counts, token events, the traceable's place) are those the SDK's tracer
// produced for these graphs. The drain test stops the server right after a run: its trace, still
// waiting to be batched, is sent before the process exits.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
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
function comparable(runs: Array<Run | PostedRun>, serverUrl: string): Record<string, unknown>[] {
  const sorted = [...runs].sort((a, b) => String(a.dotted_order).localeCompare(String(b.dotted_order)));
  const places = new Map(sorted.map((run, i) => [String(run.id), `#${i}:${String(run.name)}`]));
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
  return sorted.map((run) => {
    const {
      id,
      parent_run_id,
      trace_id,
      dotted_order,
      start_time,
      end_time,
      session_id,
      session_name,
      ...rest
    } = run as Record<string, unknown>;
    return {
      place: places.get(String(id)),
      parent: parent_run_id ? places.get(String(parent_run_id)) : null,
      depth: String(dotted_order).split(".").length,
      ended: end_time !== null && end_time !== undefined,
      ...(scrub(rest) as Record<string, unknown>),
    };
  });
}

/** A run of a trace as the test reads it, after `comparable`. */
interface SentRun {
  place: string;
  parent: string | null;
  ended: boolean;
  name: string;
  run_type: string;
  error?: string;
  inputs?: unknown;
  outputs?: unknown;
  events: Array<{ name: string; kwargs?: Record<string, unknown> }>;
  extra: { metadata: Record<string, unknown>; invocation_params?: unknown; tool_call_id?: string };
}

/** A run as posted: the `post` part's fields with its other parts (inputs, outputs, events…). */
type PostedRun = Record<string, unknown> & { id: string; trace_id: string; session_name: string };

/**
 * Between the servers and the tracing service: forwards every request and keeps the runs each
 * multipart body or batch carried (the read API does not return everything, events for one).
 */
const HOP_BY_HOP = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
  "expect",
]);

async function startCapture(target: string) {
  const runs = new Map<string, PostedRun>();
  const failures: string[] = [];
  const keep = (id: string, fields: Record<string, unknown>) => {
    runs.set(id, { ...(runs.get(id) ?? {}), ...fields } as PostedRun);
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      try {
        const body = /gzip/.test(String(req.headers["content-encoding"] ?? "")) ? gunzipSync(raw) : raw;
        const type = String(req.headers["content-type"] ?? "");
        const boundary = /boundary=(.+)$/.exec(type)?.[1];
        if (req.url?.endsWith("/runs/multipart") && boundary) {
          for (const part of body.toString("utf8").split(`--${boundary}`)) {
            const match =
              /name="(?:post|patch)\.([^".]+)(?:\.([a-z_]+))?"[\s\S]*?\r\n\r\n([\s\S]*)\r\n$/.exec(part);
            if (!match) continue;
            const [, id, field, json] = match as unknown as [string, string, string | undefined, string];
            keep(id, field ? { [field]: JSON.parse(json) } : JSON.parse(json));
          }
        } else if (req.url?.endsWith("/runs/batch")) {
          const batch = JSON.parse(body.toString("utf8")) as { post?: PostedRun[]; patch?: PostedRun[] };
          for (const run of [...(batch.post ?? []), ...(batch.patch ?? [])]) keep(run.id, run);
        }
      } catch (error) {
        failures.push(String(error));
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === "string" && !HOP_BY_HOP.has(name)) headers[name] = value;
      fetch(`${target}${req.url}`, {
        method: req.method,
        headers,
        ...(req.method === "GET" || req.method === "HEAD" ? {} : { body: raw }),
      }).then(
        async (answer) => {
          res.writeHead(answer.status, {
            "content-type": answer.headers.get("content-type") ?? "application/json",
          });
          res.end(Buffer.from(await answer.arrayBuffer()));
        },
        (error: unknown) => {
          failures.push(String(error));
          res.writeHead(502);
          res.end();
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** The runs of one trace, as sent. */
    trace: (traceId: string) => [...runs.values()].filter((run) => run.trace_id === traceId),
    /** What could not be read or forwarded (none expected). */
    failures,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A `traceable`'s run inherits its parent's metadata when it starts. LangChain's tracer adds the
 * config's `configurable` values (user-agent…) to the node's run in a background callback, so
 * whether the traceable inherits those depends on which ran first; Berth's tracer has them from the
 * start. Those keys are left out of the traceable runs' comparison.
 */
const CONFIGURABLE_KEYS = ["user-agent", "langgraph_auth_user_id"];
function withoutRacyMetadata(
  trace: ReturnType<typeof comparable>,
  traceables: string[] = [],
): ReturnType<typeof comparable> {
  return trace.map((run) => {
    if (!traceables.includes(String(run.name))) return run;
    const extra = run.extra as { metadata?: Record<string, unknown> } | undefined;
    const metadata = { ...extra?.metadata };
    for (const key of CONFIGURABLE_KEYS) delete metadata[key];
    return { ...run, extra: { ...extra, metadata } };
  });
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
  let capture: Awaited<ReturnType<typeof startCapture>>;
  let lean: SpawnedServer;
  let sdk: SpawnedServer;
  let langsmith: LangSmith;

  before(async () => {
    tracing = await startStandaloneTracing({
      file: path.join(temp.dir, "traces.db"),
      apiKey: KEY,
      logger: pino({ level: "warn" }),
    });
    capture = await startCapture(tracing.url);
    const start = (name: string, extra: Record<string, string>) =>
      spawnBerth(["dev", "--config", CONFIG, "--port", "0", "--data-dir", path.join(temp.dir, name)], {
        env: tracingEnv(name, { LANGSMITH_ENDPOINT: capture.url, ...extra }),
        timeoutMs: 150_000,
      });
    [lean, sdk] = await Promise.all([start("lean", {}), start("sdk", { BERTH_TRACER: "sdk" })]);
    langsmith = new LangSmith({ apiUrl: tracing.url, apiKey: KEY, callerOptions: { maxRetries: 0 } });
  });

  after(async () => {
    await Promise.all([lean?.stop(), sdk?.stop()]);
    await capture?.close();
    await tracing?.close();
    temp.cleanup();
  });

  it("each server says which tracer it uses", async () => {
    // The log is written asynchronously: it may follow the URL line.
    await poll(
      async () => lean.output(),
      (out) => /runs are traced by the agent server's tracer/.test(out),
    );
    await poll(
      async () => sdk.output(),
      (out) => /runs are traced by LangChain's tracer \(BERTH_TRACER=sdk\)/.test(out),
    );
  });

  /** The trace of an agent run of this project, once `count` runs of it have arrived and its root ended. */
  async function traceOf(project: string, runId: string, count: number): Promise<Run[]> {
    return poll(
      async () => {
        const runs: Run[] = [];
        try {
          for await (const run of langsmith.listRuns({ projectName: project })) runs.push(run);
        } catch (error) {
          // The project exists once its first run has arrived.
          if (!/not found/.test(String(error))) throw error;
        }
        const root = runs.find((r) => !r.parent_run_id && r.extra?.metadata?.run_id === runId);
        return root ? runs.filter((r) => r.trace_id === root.trace_id) : [];
      },
      (runs) => runs.length >= count && runs.some((r) => !r.parent_run_id && r.end_time),
    );
  }

  /**
   * Runs the same input on both servers. The traces read back through the SDK must be equal, and
   * so must what each tracer sent (every field and part); answers the lean server's trace as sent.
   */
  async function both(
    graph: string,
    input: unknown,
    count: number,
    options: { streamMode?: string[]; traceables?: string[] } = {},
  ) {
    const streamMode = options.streamMode ?? ["values"];
    const read: Record<string, ReturnType<typeof comparable>> = {};
    const sent: Record<string, ReturnType<typeof comparable>> = {};
    for (const [project, server] of [
      ["lean", lean],
      ["sdk", sdk],
    ] as const) {
      const client = new Client({ apiUrl: server.url });
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, graph, {
        input: input as Record<string, unknown>,
        streamMode: streamMode as never,
      });
      await client.runs.join(thread.thread_id, run.run_id);
      const runs = await traceOf(project, run.run_id, count);
      assert.equal(runs.length, count, `${project}: ${runs.map((r) => r.name).join(", ")}`);
      read[project] = withoutRacyMetadata(comparable(runs, server.url), options.traceables);
      sent[project] = withoutRacyMetadata(
        comparable(capture.trace(runs[0]?.trace_id as string), server.url),
        options.traceables,
      );
    }
    assert.deepEqual(capture.failures, []);
    assert.deepEqual(read.lean, read.sdk);
    assert.deepEqual(sent.lean, sent.sdk);
    assert.equal(sent.lean?.length, count);
    return sent.lean as unknown as SentRun[];
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
    const model = trace[3] as SentRun;
    assert.deepEqual(model.extra.metadata.usage_metadata, {
      input_tokens: 7,
      output_tokens: 5,
      total_tokens: 12,
      input_token_details: {},
      output_token_details: {},
    });
    assert.ok("invocation_params" in model.extra, JSON.stringify(model.extra));
    assert.equal(model.extra.metadata.LANGSMITH_TENANT_ID, "tenant-of-the-test");
    const tool = trace[6] as SentRun;
    assert.equal(tool.extra.metadata.langgraph_node, "tools");
    assert.match(JSON.stringify(tool.outputs), /42/);
  });

  it("a user's traceable inside a node nests under the node, a runnable inside it under the traceable", async () => {
    const trace = await both("traced", { question: " Why? " }, 6, { traceables: ["lookup", "normalise"] });
    assert.deepEqual(
      trace.map((r) => `${r.parent ?? "-"} > ${r.name}/${r.run_type}`),
      [
        "- > LangGraph/chain",
        "#0:LangGraph > __start__/chain",
        "#0:LangGraph > research/chain",
        "#2:research > lookup/retriever",
        "#3:lookup > normalise/chain",
        "#4:normalise > lower/chain",
      ],
    );
    assert.deepEqual(trace[4]?.outputs, { outputs: "why?" });
  });

  it("a streaming chat model: its run records each token", async () => {
    const trace = await both("chat", { messages: [{ role: "user", content: "Hi" }] }, 4, {
      streamMode: ["values", "messages"],
    });
    const model = trace.find((r) => r.run_type === "llm") as SentRun;
    const tokens = model.events.filter((e) => e.name === "new_token");
    assert.ok(tokens.length >= 2, JSON.stringify(model.events));
    assert.equal(model.events[0]?.name, "start");
    assert.equal(model.events.at(-1)?.name, "end");
  });

  it("a node that throws: the node and the graph end in error", async () => {
    const trace = await both("fails", { value: 1 }, 3);
    const [root, , node] = trace;
    assert.match(String(node?.error), /the fixture node failed on purpose/);
    assert.match(String(root?.error), /the fixture node failed on purpose/);
    assert.deepEqual(
      root?.events.map((e) => e.name),
      ["start", "error"],
    );
  });

  it("an interrupt: the node ends with GraphInterrupt, the graph's run ends", async () => {
    const trace = await both("asks", { question: "Go on?" }, 3);
    const node = trace.find((r) => r.name === "ask");
    assert.match(String(node?.error), /GraphInterrupt/);
    assert.ok(trace[0]?.ended);
    assert.equal(trace[0]?.error, undefined);
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
