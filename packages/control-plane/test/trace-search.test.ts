// The trace page's server side (issue 30), over HTTP on SQLite and on PostgreSQL (DATABASE_URL):
// search across a project's traces by any run's name, tags, metadata, inputs or outputs (paged,
// literal, case folded, one workspace only); a trace whose child failed is failed (list, filter,
// stats, the tree); latency and token series over a window; feedback on runs (LangSmith's shape).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { openPlane, type TestPlane } from "./helpers.js";
import { TEST_DATABASE_URL } from "./postgres.js";

const PREFIX = "/langsmith-api";
const PROJECT = "search-project";

interface RunSpec {
  name: string;
  run_type?: string;
  error?: string;
  end?: boolean;
  inputs?: unknown;
  outputs?: unknown;
  tags?: string[];
  metadata?: Record<string, unknown>;
  tokens?: number;
  children?: RunSpec[];
}

/** A trace's runs as `/runs/batch` posts, the root first; returns them with the root's id. */
function traceOf(spec: RunSpec, startMs: number): { id: string; runs: Record<string, unknown>[] } {
  const runs: Record<string, unknown>[] = [];
  const rootId = randomUUID();
  const add = (s: RunSpec, id: string, parent: { id: string; dotted: string } | null, at: number) => {
    const stamp = `${new Date(at).toISOString().replace(/[-:.]/g, "").replace("Z", "")}000Z`;
    const dotted = parent ? `${parent.dotted}.${stamp}${id}` : `${stamp}${id}`;
    runs.push({
      id,
      trace_id: rootId,
      parent_run_id: parent?.id,
      dotted_order: dotted,
      name: s.name,
      run_type: s.run_type ?? "chain",
      start_time: new Date(at).toISOString(),
      ...(s.end === false ? {} : { end_time: new Date(at + 500).toISOString() }),
      ...(s.error ? { error: s.error } : {}),
      inputs: s.inputs ?? {},
      outputs: s.outputs ?? {},
      tags: s.tags ?? [],
      extra: { metadata: s.metadata ?? {} },
      ...(s.tokens
        ? {
            outputs: {
              ...(s.outputs as object),
              usage_metadata: { input_tokens: 10, output_tokens: s.tokens - 10, total_tokens: s.tokens },
            },
          }
        : {}),
      session_name: PROJECT,
    });
    for (const [i, child] of (s.children ?? []).entries())
      add(child, randomUUID(), { id, dotted }, at + 10 + i);
  };
  add(spec, rootId, null, startMs);
  return { id: rootId, runs };
}

for (const storage of ["sqlite", ...(TEST_DATABASE_URL ? ["postgres"] : [])]) {
  describe(`trace search, error roll-up, series and feedback (${storage})`, () => {
    let p: TestPlane;
    let close: () => Promise<void>;
    let projectId: string;
    const now = Date.now();
    const lisbon = traceOf(
      {
        name: "agent",
        tags: ["prod"],
        metadata: { customer: "ACME-42" },
        inputs: { messages: [{ role: "user", content: "Weather?" }] },
        children: [
          { name: "model", run_type: "llm", outputs: { text: "Sunny in Lisbon, 50% clouds" }, tokens: 30 },
        ],
      },
      now - 3_000,
    );
    const failedChild = traceOf(
      {
        name: "agent",
        inputs: { question: "weather in Porto" },
        children: [{ name: "lookup", run_type: "tool", error: "ToolError: boom" }],
      },
      now - 2_000,
    );
    const running = traceOf({ name: "agent", end: false, inputs: { question: "weather" } }, now - 1_000);

    before(async () => {
      ({ plane: p, close } = await openPlane({}, storage === "postgres" ? "postgres" : undefined));
      const runs = [...lisbon.runs, ...failedChild.runs, ...running.runs];
      const res = await p.call({ method: "POST", url: `${PREFIX}/runs/batch`, payload: { post: runs } });
      assert.equal(res.statusCode, 202, res.body);
      await p.plane.traceQueue.settled();
      const list = (await p.call({ method: "GET", url: `/v2/tracing-projects?name=${PROJECT}` })).json();
      projectId = list.resources[0].id;
    });
    after(async () => close());

    const traces = async (query: string, headers: Record<string, string> = {}) => {
      const res = await p.call({
        method: "GET",
        url: `/v2/tracing-projects/${projectId}/traces?${query}`,
        headers,
      });
      return {
        status: res.statusCode,
        ids: ((res.json().resources ?? []) as Array<{ trace_id: string }>).map((t) => t.trace_id),
        body: res.json(),
      };
    };

    it("finds traces by a child's output, the root's metadata or tags, case folded and literally", async () => {
      assert.deepEqual((await traces("q=lisbon")).ids, [lisbon.id]);
      assert.deepEqual((await traces("q=acme-42")).ids, [lisbon.id]);
      assert.deepEqual((await traces("q=prod")).ids, [lisbon.id]);
      assert.deepEqual((await traces("q=porto")).ids, [failedChild.id]);
      // '%' and '_' are characters, not wildcards.
      assert.deepEqual((await traces("q=50%25")).ids, [lisbon.id]);
      assert.deepEqual((await traces("q=%25%25")).ids, []);
      assert.deepEqual((await traces("q=l_sbon")).ids, []);
      // Blank is no search; a name matches too.
      assert.equal((await traces("q=%20")).ids.length, 3);
      assert.deepEqual((await traces("q=lookup")).ids, [failedChild.id]);
      // A child run's id, pasted, finds its trace.
      const childId = String(failedChild.runs[1]?.id);
      assert.deepEqual((await traces(`q=${childId.toUpperCase()}`)).ids, [failedChild.id]);
    });

    it("pages the matches, newest first, and combines with the status filter", async () => {
      const first = await traces("q=weather&limit=2");
      assert.deepEqual(first.ids, [running.id, failedChild.id]);
      assert.equal(first.body.offset, 2);
      assert.deepEqual((await traces("q=weather&limit=2&offset=2")).ids, [lisbon.id]);
      assert.deepEqual((await traces("q=weather&status=pending")).ids, [running.id]);
      assert.equal((await traces(`q=${"x".repeat(501)}`)).status, 422);
    });

    it("a trace whose child failed is failed: the list, the error filter, the stats, the tree", async () => {
      const all = (await traces("limit=10")).body.resources as Array<{
        trace_id: string;
        status: string;
        error_count: number;
        tags: string[];
      }>;
      const failed = all.find((t) => t.trace_id === failedChild.id);
      assert.equal(failed?.status, "error");
      assert.equal(failed?.error_count, 1);
      assert.deepEqual(all.find((t) => t.trace_id === lisbon.id)?.tags, ["prod"]);
      assert.deepEqual((await traces("status=error")).ids, [failedChild.id]);
      assert.deepEqual((await traces("status=success")).ids, [lisbon.id]);
      const stats = (await p.call({ method: "GET", url: `/v2/tracing-projects/${projectId}/stats` })).json();
      assert.equal(stats.errors, 1);
      assert.equal(stats.pending, 1);
      const tree = await p.call({
        method: "GET",
        url: `/v2/tracing-projects/${projectId}/traces/${failedChild.id}`,
      });
      assert.equal(tree.json().status, "error");
      assert.equal(tree.json().root.status, "success");
    });

    it("another workspace's key neither searches nor charts this project (404)", async () => {
      const other = await p.addTenant();
      const headers = { "x-api-key": other.key };
      assert.equal((await traces("q=lisbon", headers)).status, 404);
      const series = await p.raw({ method: "GET", url: `/v2/tracing-projects/${projectId}/series`, headers });
      assert.equal(series.statusCode, 404);
    });

    it("series: traces, failures, latency and tokens per bucket of the chosen window", async () => {
      const start = new Date(now - 60_000).toISOString();
      const end = new Date(now + 60_000).toISOString();
      const res = await p.call({
        method: "GET",
        url: `/v2/tracing-projects/${projectId}/series?start_time=${start}&end_time=${end}&buckets=4`,
      });
      assert.equal(res.statusCode, 200, res.body);
      const series = res.json() as {
        bucket_seconds: number;
        points: Array<{
          traces: number;
          errors: number;
          latency_p50_ms: number | null;
          total_tokens: number;
        }>;
      };
      assert.equal(series.bucket_seconds, 30);
      assert.equal(series.points.length, 4);
      const sum = (f: (x: (typeof series.points)[number]) => number) =>
        series.points.reduce((a, x) => a + f(x), 0);
      assert.equal(
        sum((x) => x.traces),
        3,
      );
      assert.equal(
        sum((x) => x.errors),
        1,
      );
      assert.equal(
        sum((x) => x.total_tokens),
        30,
      );
      assert.equal(series.points[1]?.latency_p50_ms, 500);
      // Outside the window: nothing; a backwards window: 400.
      const later = await p.call({
        method: "GET",
        url: `/v2/tracing-projects/${projectId}/series?start_time=${end}&end_time=${new Date(now + 120_000).toISOString()}`,
      });
      assert.equal(
        later.json().points.reduce((a: number, x: { traces: number }) => a + x.traces, 0),
        0,
      );
      const backwards = await p.call({
        method: "GET",
        url: `/v2/tracing-projects/${projectId}/series?start_time=${end}&end_time=${start}`,
      });
      assert.equal(backwards.statusCode, 400);
    });

    it("feedback (the tracing package's API, as the trace page reads it): by run, never across workspaces", async () => {
      const runId = lisbon.id;
      const created = await p.call({
        method: "POST",
        url: `${PREFIX}/feedback`,
        payload: {
          run_id: runId,
          trace_id: lisbon.id,
          key: "correctness",
          score: true,
          comment: "right city",
        },
      });
      assert.equal(created.statusCode, 200, created.body);
      assert.equal(created.json().score, 1);
      const list = await p.call({ method: "GET", url: `${PREFIX}/feedback?run=${runId}&limit=100` });
      const [one, ...more] = list.json() as Array<Record<string, unknown>>;
      assert.equal(more.length, 0);
      assert.equal(one?.key, "correctness");
      assert.equal(one?.comment, "right city");
      assert.equal(one?.run_id, runId);
      assert.equal(one?.trace_id, lisbon.id);
      assert.equal(typeof one?.created_at, "string");
      assert.deepEqual(
        (await p.call({ method: "GET", url: `${PREFIX}/feedback?run=${failedChild.id}` })).json(),
        [],
      );
      const noKey = await p.call({ method: "POST", url: `${PREFIX}/feedback`, payload: { run_id: runId } });
      assert.equal(noKey.statusCode, 400);
      // Another workspace's feedback on the same run id stays in that workspace (LangSmith takes
      // feedback for runs not ingested yet, so the run is not looked up), and ours is not shown to it.
      const other = await p.addTenant();
      const headers = { "x-api-key": other.key };
      const theirs = await p.raw({
        method: "POST",
        url: `${PREFIX}/feedback`,
        payload: { run_id: runId, key: "k", score: 0 },
        headers,
      });
      assert.equal(theirs.statusCode, 200, theirs.body);
      const theirList = await p.raw({ method: "GET", url: `${PREFIX}/feedback?run=${runId}`, headers });
      assert.deepEqual(
        (theirList.json() as Array<{ key: string }>).map((f) => f.key),
        ["k"],
      );
      assert.deepEqual(
        (
          (await p.call({ method: "GET", url: `${PREFIX}/feedback?run=${runId}` })).json() as Array<{
            key: string;
          }>
        ).map((f) => f.key),
        ["correctness"],
      );
      // Feedback goes out of sight with its runs (here: the project deleted).
      assert.equal((await p.call({ method: "GET", url: `${PREFIX}/feedback` })).json().length, 1);
      const gone = await p.call({ method: "DELETE", url: `/v2/tracing-projects/${projectId}` });
      assert.equal(gone.statusCode, 204);
      assert.deepEqual((await p.call({ method: "GET", url: `${PREFIX}/feedback` })).json(), []);
    });
  });
}
