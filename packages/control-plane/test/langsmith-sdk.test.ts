// The official `langsmith` SDK (the version the agent server's @langchain/core uses) pointed at
// Berth's LangSmith-compatible API: its ingest paths (multipart as /info asks; batch; single
// POST/PATCH) land, and its read calls (listRuns, readRun, listProjects, readProject) answer.
// Reference: langchain-ai/langsmith-sdk js/src/client.ts (paths, bodies, /info fields).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { Client } from "langsmith";
import { getCurrentRunTree, traceable } from "langsmith/traceable";
import { ADMIN_KEY, openPlane, type TestPlane, waitFor } from "./helpers.js";

let plane: TestPlane;
let close: () => Promise<void>;
let api: string;

before(async () => {
  ({ plane, close } = await openPlane());
  await plane.plane.app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = plane.plane.app.server.address() as AddressInfo;
  api = `http://127.0.0.1:${port}/langsmith-api`;
});
after(async () => close());

function client(apiKey = ADMIN_KEY, extra: Record<string, unknown> = {}): Client {
  return new Client({ apiUrl: api, apiKey, callerOptions: { maxRetries: 0 }, ...extra });
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe("langsmith SDK against Berth", () => {
  it("GET /info answers what the SDK reads: multipart on, compression off (loopback), a byte limit", async () => {
    const res = await fetch(`${api}/info`);
    assert.equal(res.status, 200);
    const info = (await res.json()) as {
      batch_ingest_config: { use_multipart_endpoint: boolean; size_limit_bytes: number };
      instance_flags: { gzip_body_enabled: boolean; zstd_compression_enabled: boolean };
    };
    assert.equal(info.batch_ingest_config.use_multipart_endpoint, true);
    assert.ok(info.batch_ingest_config.size_limit_bytes > 0);
    assert.equal(info.instance_flags.gzip_body_enabled, false);
    assert.equal(info.instance_flags.zstd_compression_enabled, false);
  });

  it("traceable runs go through /runs/multipart (uncompressed, as /info asks) and read back with listRuns, readRun, readProject", async () => {
    const sent: Array<{ path: string; encoding: string | null; status: number }> = [];
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const url = String(input instanceof Request ? input.url : input);
      const encoding = new Headers(init?.headers).get("content-encoding");
      sent.push({ path: new URL(url).pathname, encoding, status: res.status });
      return res;
    };
    const ls = client(ADMIN_KEY, { fetchImplementation: recording });
    const project = `sdk-multipart-${randomUUID().slice(0, 8)}`;
    const inner = traceable(async (x: number) => ({ doubled: x * 2 }), {
      name: "double",
      run_type: "tool",
      client: ls,
      project_name: project,
      tracingEnabled: true,
    });
    const outer = traceable(async (x: number) => inner(x), {
      name: "pipeline",
      client: ls,
      project_name: project,
      tracingEnabled: true,
      metadata: { thread_id: "thread-1", run_id: "agent-run-1", graph_id: "g" },
    });
    assert.deepEqual(await outer(21), { doubled: 42 });
    await ls.awaitPendingTraceBatches();
    // A second trace, sent once the client knows /info.
    const other = traceable(async () => "second", {
      name: "second",
      client: ls,
      project_name: `${project}-2`,
      tracingEnabled: true,
    });
    await other();
    await ls.awaitPendingTraceBatches();
    await plane.plane.traceQueue.settled();
    const ingests = sent.filter((s) => s.path.endsWith("/runs/multipart"));
    assert.ok(ingests.length >= 2, JSON.stringify(sent));
    assert.ok(
      ingests.every((s) => s.status === 202),
      JSON.stringify(sent),
    );
    assert.ok(
      ingests.every((s) => s.encoding === null),
      `a compressed request: ${JSON.stringify(sent)}`,
    );
    assert.equal((await collect(client().listRuns({ projectName: `${project}-2` }))).length, 1);

    const read = client();
    const runs = await waitFor(
      () => collect(read.listRuns({ projectName: project })),
      (r) => r.length === 2,
    );
    const root = runs.find((r) => r.name === "pipeline");
    const child = runs.find((r) => r.name === "double");
    assert.ok(root && child, JSON.stringify(runs.map((r) => r.name)));
    assert.equal(child.parent_run_id, root.id);
    assert.equal(child.trace_id, root.id);
    assert.equal(child.run_type, "tool");
    assert.deepEqual(child.outputs, { doubled: 42 });
    assert.equal(root.status, "success");
    const roots = await collect(read.listRuns({ projectName: project, isRoot: true }));
    assert.deepEqual(
      roots.map((r) => r.id),
      [root.id],
    );
    const again = await read.readRun(child.id);
    assert.equal(again.id, child.id);
    assert.deepEqual(again.parent_run_ids, [root.id]);
    const info = await read.readProject({ projectName: project });
    assert.equal(info.name, project);
    const listed = await collect(read.listProjects({ name: project }));
    assert.equal(listed.length, 1);

    // Berth's own API: the trace with its totals and tree, filtered by the agent thread.
    const res = await plane.call({
      method: "GET",
      url: `/v2/tracing-projects/${info.id}/traces?thread_id=thread-1`,
    });
    assert.equal(res.statusCode, 200, res.body);
    const page = res.json() as { resources: Array<{ trace_id: string; run_count: number; run_id: string }> };
    assert.equal(page.resources.length, 1);
    assert.equal(page.resources[0]?.trace_id, root.id);
    assert.equal(page.resources[0]?.run_count, 2);
    assert.equal(page.resources[0]?.run_id, "agent-run-1");
    const stats = (
      await plane.call({ method: "GET", url: `/v2/tracing-projects/${info.id}/stats` })
    ).json() as { traces: number; errors: number; latency_p50_ms: number | null };
    assert.equal(stats.traces, 1);
    assert.equal(stats.errors, 0);
    assert.ok(stats.latency_p50_ms !== null && stats.latency_p50_ms >= 0);
    const tree = (
      await plane.call({ method: "GET", url: `/v2/tracing-projects/${info.id}/traces/${root.id}` })
    ).json() as { root: { name: string; children: Array<{ name: string }> } };
    assert.equal(tree.root.name, "pipeline");
    assert.deepEqual(
      tree.root.children.map((c) => c.name),
      ["double"],
    );
  });

  it("batchIngestRuns (/runs/batch), createRun (POST /runs) and updateRun (PATCH /runs/{id}) land", async () => {
    const ls = client(ADMIN_KEY, { autoBatchTracing: false });
    const project = `sdk-batch-${randomUUID().slice(0, 8)}`;
    const start = new Date();
    const traceId = randomUUID();
    const dotted = `${start.toISOString().replace(/[-:.]/g, "").replace("Z", "000Z")}${traceId}`;
    await ls.batchIngestRuns({
      runCreates: [
        {
          id: traceId,
          trace_id: traceId,
          dotted_order: dotted,
          name: "batched",
          run_type: "chain",
          inputs: { q: 1 },
          start_time: start.getTime(),
          session_name: project,
        },
      ],
      runUpdates: [],
    });
    await ls.batchIngestRuns({
      runCreates: [],
      runUpdates: [
        {
          id: traceId,
          trace_id: traceId,
          dotted_order: dotted,
          outputs: { a: 2 },
          end_time: Date.now(),
        },
      ],
    });
    const single = randomUUID();
    await ls.createRun({
      id: single,
      name: "single",
      run_type: "llm",
      inputs: { prompt: "hi" },
      project_name: project,
      start_time: Date.now(),
    });
    await ls.updateRun(single, {
      end_time: Date.now(),
      outputs: { usage_metadata: { input_tokens: 3, output_tokens: 4, total_tokens: 7 } },
    });
    await plane.plane.traceQueue.settled();
    const runs = await waitFor(
      () => collect(client().listRuns({ projectName: project })),
      (r) => r.length === 2 && r.every((x) => x.status === "success"),
    );
    const batched = runs.find((r) => r.id === traceId);
    assert.deepEqual(batched?.inputs, { q: 1 });
    assert.deepEqual(batched?.outputs, { a: 2 });
    const llm = runs.find((r) => r.id === single);
    assert.equal(llm?.total_tokens, 7);
    assert.equal(llm?.prompt_tokens, 3);

    // A filter expression narrows the runs (langsmith-filter.test.ts has the grammar); the
    // free-text `query` is refused, not answered with unfiltered runs.
    const named = await collect(client().listRuns({ projectName: project, filter: 'eq(name, "single")' }));
    assert.deepEqual(
      named.map((r) => r.id),
      [single],
    );
    await assert.rejects(collect(client().listRuns({ projectName: project, query: "single" })), /422/);
    // deleteProject removes the project and its runs.
    await client().deleteProject({ projectName: project });
    await assert.rejects(client().readProject({ projectName: project }), /not found/);
    await assert.rejects(client().readRun(single), /404/);
  });

  it("with a deployment's ingest key, multipart and batch ingest of its own runs land; its updateRun of another deployment's run is refused (409)", async () => {
    const keys: string[] = [];
    for (const name of ["sdk-owner", "sdk-other"]) {
      const created = await plane.call({
        method: "POST",
        url: "/v2/deployments",
        payload: {
          name,
          source: "external_container",
          source_config: { resource_spec: {} },
          source_revision_config: { image_uri: "registry.example/agent@sha256:abc" },
          secrets: [],
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      const { id, tenant_id } = created.json() as { id: string; tenant_id: string };
      keys.push(plane.plane.ingestKeys.keyOf(tenant_id, id));
    }
    const [ownerKey, otherKey] = keys as [string, string];
    const statuses: number[] = [];
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!String(input instanceof Request ? input.url : input).endsWith("/info")) statuses.push(res.status);
      return res;
    };
    const owner = client(ownerKey, { fetchImplementation: recording });
    let rootId = "";
    const step = traceable(async (x: number) => x + 1, { name: "step", client: owner, tracingEnabled: true });
    const graph = traceable(
      async (x: number) => {
        rootId = getCurrentRunTree().id;
        return step(x);
      },
      { name: "graph", client: owner, tracingEnabled: true },
    );
    assert.equal(await graph(1), 2);
    await owner.awaitPendingTraceBatches();
    const batchId = randomUUID();
    const now = new Date();
    const dotted = `${now.toISOString().replace(/[-:.]/g, "").replace("Z", "000Z")}${batchId}`;
    const ownerBatch = client(ownerKey, { autoBatchTracing: false, fetchImplementation: recording });
    const common = { id: batchId, trace_id: batchId, dotted_order: dotted };
    await ownerBatch.batchIngestRuns({
      runCreates: [
        { ...common, name: "batched", run_type: "chain", inputs: { q: 1 }, start_time: now.getTime() },
      ],
      runUpdates: [],
    });
    await ownerBatch.batchIngestRuns({
      runCreates: [],
      runUpdates: [{ ...common, outputs: { a: 1 }, end_time: Date.now() }],
    });
    assert.ok(statuses.length >= 3 && statuses.every((s) => s === 202), JSON.stringify(statuses));
    const root = await client().readRun(rootId);
    assert.equal(root.name, "graph");
    assert.equal((await client().readRun(batchId)).status, "success");

    const other = client(otherKey, { autoBatchTracing: false });
    await assert.rejects(other.updateRun(rootId, { outputs: { forged: true }, end_time: Date.now() }), /409/);
    assert.deepEqual((await client().readRun(rootId)).outputs, root.outputs);
  });
});
