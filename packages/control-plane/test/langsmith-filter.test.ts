// LangSmith filter expressions on POST /runs/query, through the official `langsmith` SDK's
// listRuns({filter, traceFilter, treeFilter}): the supported subset answers the matching runs;
// what does not parse or is not supported is a 422 in the API's shape, never unfiltered runs.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { Client } from "langsmith";
import { ADMIN_KEY, openPlane, type TestPlane, waitFor } from "./helpers.js";

let plane: TestPlane;
let close: () => Promise<void>;
let api: string;
const project = `filters-${randomUUID().slice(0, 8)}`;
const T0 = Date.parse("2026-03-01T10:00:00.000Z");
const ids = {
  a: randomUUID(),
  modelA: randomUUID(),
  tool: randomUUID(),
  b: randomUUID(),
  modelB: randomUUID(),
  c: randomUUID(),
};

function client(): Client {
  return new Client({
    apiUrl: api,
    apiKey: ADMIN_KEY,
    callerOptions: { maxRetries: 0 },
    autoBatchTracing: false,
  });
}

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:.]/g, "").replace("Z", "000Z");
}

/** A finished (or, without `end`, pending) run of a two-level trace. */
function run(fields: {
  id: string;
  root: string;
  name: string;
  type: string;
  start: number;
  end?: number;
  error?: string;
  tags?: string[];
  threadId?: string;
  tokens?: number;
}) {
  const isRoot = fields.id === fields.root;
  return {
    id: fields.id,
    trace_id: fields.root,
    parent_run_id: isRoot ? undefined : fields.root,
    dotted_order: isRoot
      ? `${stamp(fields.start)}${fields.id}`
      : `${stamp(T0)}${fields.root}.${stamp(fields.start)}${fields.id}`,
    name: fields.name,
    run_type: fields.type,
    start_time: fields.start,
    ...(fields.end !== undefined ? { end_time: fields.end } : {}),
    ...(fields.error !== undefined ? { error: fields.error } : {}),
    inputs: { question: `input of ${fields.name}` },
    ...(fields.end !== undefined
      ? {
          outputs: fields.tokens
            ? {
                usage_metadata: {
                  input_tokens: 1,
                  output_tokens: fields.tokens - 1,
                  total_tokens: fields.tokens,
                },
              }
            : { answer: `output of ${fields.name}` },
        }
      : {}),
    tags: fields.tags ?? [],
    extra: { metadata: fields.threadId ? { thread_id: fields.threadId } : {} },
    session_name: project,
  };
}

async function names(query: {
  filter?: string;
  traceFilter?: string;
  treeFilter?: string;
}): Promise<string[]> {
  const out: string[] = [];
  for await (const r of client().listRuns({ projectName: project, ...query })) out.push(r.name);
  return out.sort();
}

before(async () => {
  ({ plane, close } = await openPlane());
  await plane.plane.app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = plane.plane.app.server.address() as AddressInfo;
  api = `http://127.0.0.1:${port}/langsmith-api`;
  await client().batchIngestRuns({
    runCreates: [
      run({
        id: ids.a,
        root: ids.a,
        name: "agent-a",
        type: "chain",
        start: T0,
        end: T0 + 2000,
        tags: ["prod"],
        threadId: "t-a",
      }),
      run({
        id: ids.modelA,
        root: ids.a,
        name: "model-a",
        type: "llm",
        start: T0 + 100,
        end: T0 + 600,
        tokens: 30,
      }),
      run({
        id: ids.tool,
        root: ids.a,
        name: "tool",
        type: "tool",
        start: T0 + 700,
        end: T0 + 800,
        error: "boom: no such city",
      }),
      run({
        id: ids.b,
        root: ids.b,
        name: "agent-b",
        type: "chain",
        start: T0 + 5000,
        end: T0 + 5100,
        error: "failed",
        tags: ["dev"],
        threadId: "t-b",
      }),
      run({
        id: ids.modelB,
        root: ids.b,
        name: "model-b",
        type: "llm",
        start: T0 + 5010,
        end: T0 + 5050,
        tokens: 5,
      }),
      run({ id: ids.c, root: ids.c, name: "agent-c", type: "chain", start: T0 + 9000, threadId: "t-c" }),
    ],
    runUpdates: [],
  });
  await plane.plane.traceQueue.settled();
  await waitFor(
    () => names({}),
    (n) => n.length === 6,
  );
});
after(async () => close());

describe("LangSmith filter expressions (listRuns through the official SDK)", () => {
  it("compares fields: status, run type, tokens, times, latency, names, ids", async () => {
    assert.deepEqual(await names({ filter: 'eq(status, "error")' }), ["agent-b", "tool"]);
    assert.deepEqual(await names({ filter: 'eq(status, "pending")' }), ["agent-c"]);
    assert.deepEqual(await names({ filter: "neq(status, 'success')" }), ["agent-b", "agent-c", "tool"]);
    assert.deepEqual(await names({ filter: 'and(eq(run_type, "llm"), gt(total_tokens, 10))' }), ["model-a"]);
    assert.deepEqual(await names({ filter: `gte(start_time, "${new Date(T0 + 5000).toISOString()}")` }), [
      "agent-b",
      "agent-c",
      "model-b",
    ]);
    assert.deepEqual(await names({ filter: 'gt(latency, "1s")' }), ["agent-a"]);
    assert.deepEqual(await names({ filter: "lte(latency, 0.05)" }), ["model-b"]);
    // Fractions and huge numbers against integer columns (PostgreSQL types them as bigint).
    assert.deepEqual(await names({ filter: 'lt(latency, "40.5ms")' }), ["model-b"]);
    assert.deepEqual(await names({ filter: "gte(total_tokens, 29.5)" }), ["model-a"]);
    assert.deepEqual(await names({ filter: "eq(total_tokens, 5.5)" }), []);
    assert.deepEqual(await names({ filter: "lt(total_tokens, 1e300)" }), ["model-a", "model-b"]);
    assert.deepEqual(await names({ filter: `or(eq(name, "tool"), eq(id, "${ids.b}"))` }), [
      "agent-b",
      "tool",
    ]);
    assert.deepEqual(await names({ filter: 'in(run_type, ["tool", "llm"])' }), [
      "model-a",
      "model-b",
      "tool",
    ]);
    assert.deepEqual(await names({ filter: "eq(is_root, true)" }), ["agent-a", "agent-b", "agent-c"]);
    assert.deepEqual(await names({ filter: 'not(eq(run_type, "llm"))' }), [
      "agent-a",
      "agent-b",
      "agent-c",
      "tool",
    ]);
  });

  it("tags, metadata ids, search, and filters on the trace's root or its other runs", async () => {
    assert.deepEqual(await names({ filter: 'has(tags, "prod")' }), ["agent-a"]);
    assert.deepEqual(
      await names({ filter: 'and(eq(metadata_key, "thread_id"), eq(metadata_value, "t-b"))' }),
      ["agent-b"],
    );
    assert.deepEqual(await names({ filter: 'search("NO SUCH CITY")' }), ["tool"]);
    assert.deepEqual(await names({ filter: 'eq(run_type, "llm")', traceFilter: 'eq(status, "error")' }), [
      "model-b",
    ]);
    assert.deepEqual(await names({ filter: "eq(is_root, true)", treeFilter: 'eq(name, "tool")' }), [
      "agent-a",
    ]);
    // A value is a parameter, never SQL.
    assert.deepEqual(await names({ filter: `eq(name, "x' or '1'='1")` }), []);
  });

  it("refuses what does not parse or is not supported: 422 with the reason, at the field", async () => {
    const cases: Array<[string, RegExp]> = [
      ['eq(colour, "red")', /Unsupported field colour/],
      ['eq(name, "unterminated)', /Unterminated string/],
      ['eq(name, "a"', /ends too early/],
      ['like(name, "a%")', /Unsupported function like/],
      ['gt(name, "a")', /name supports eq and neq/],
      ['and(eq(metadata_key, "a\\"b"), eq(metadata_value, "u"))', /metadata_key must be/],
      [`${"not(".repeat(40)}eq(name, "a")${")".repeat(40)}`, /Nested deeper/],
      ['gte(start_time, "yesterday")', /ISO 8601/],
      ['eq(constructor, "x")', /Unsupported field constructor/],
      ['in(toString, ["x"])', /in\(\) supports/],
      ['eq(metadata_value, "x")', /Metadata filters take the pair/],
      ["gt(total_tokens, 1e400)", /must be a number/],
    ];
    for (const [filter, message] of cases) {
      const res = await fetch(`${api}/runs/query`, {
        method: "POST",
        headers: { "x-api-key": ADMIN_KEY, "content-type": "application/json" },
        body: JSON.stringify({ filter }),
      });
      assert.equal(res.status, 422, filter);
      const body = (await res.json()) as { detail: Array<{ loc: unknown[]; msg: string; type: string }> };
      assert.deepEqual(body.detail[0]?.loc, ["body", "filter"], filter);
      assert.match(body.detail[0]?.msg ?? "", message, filter);
    }
    const long = await fetch(`${api}/runs/query`, {
      method: "POST",
      headers: { "x-api-key": ADMIN_KEY, "content-type": "application/json" },
      body: JSON.stringify({ tree_filter: `eq(name, "${"a".repeat(5000)}")` }),
    });
    assert.equal(long.status, 422);
    await assert.rejects(names({ filter: 'eq(colour, "red")' }), /422/);
  });
});
