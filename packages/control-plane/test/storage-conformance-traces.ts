// The storage contract, continued: traces' runs (upserts that merge a post and its patch, trees,
// totals, filters, tenant scoping, retention) and tracing projects' lifecycle.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { it } from "node:test";
import { type RunWrite, runWriteOf } from "@berth-platform/tracing";
import type { ControlPlaneStorage } from "../src/storage/types.js";
import { fixture } from "./storage-fixtures.js";

interface Shared {
  storage: ControlPlaneStorage;
  tenantA: string;
  tenantB: string;
}

function post(tenant: string, project: string, raw: Record<string, unknown>): RunWrite {
  return runWriteOf(raw, "post", tenant, project, 100);
}

function patch(tenant: string, raw: Record<string, unknown>): RunWrite {
  return runWriteOf(raw, "patch", tenant, undefined, 50);
}

/** Registers the tracing cases (inside the suite's describe). */
export function traceStoreCases(shared: () => Shared): void {
  it("traces: a patch completes its post (either order), trees and token totals read back, tenant-scoped", async () => {
    const { storage, tenantA, tenantB } = shared();
    const project = (
      await storage.projects.ensure({
        id: randomUUID(),
        tenant_id: tenantA,
        name: `traces-${randomUUID()}`,
        deployment_id: null,
        created_at: new Date().toISOString(),
      })
    ).id;
    const root = randomUUID();
    const llm = randomUUID();
    const t0 = Date.UTC(2026, 0, 1);
    const meta = { metadata: { thread_id: "th-1", run_id: "ar-1", graph_id: "agent" } };
    // The child's patch arrives before its post: the row is made by the patch, completed by the post.
    await storage.traces.write(
      [
        patch(tenantA, {
          id: llm,
          trace_id: root,
          end_time: t0 + 30,
          outputs: { usage_metadata: { input_tokens: 5, output_tokens: 2, total_tokens: 7 } },
        }),
      ],
      t0,
    );
    await storage.traces.write(
      [
        post(tenantA, project, {
          id: root,
          trace_id: root,
          dotted_order: `a${root}`,
          name: "graph",
          run_type: "chain",
          start_time: t0,
          extra: meta,
          inputs: { q: 1 },
        }),
        post(tenantA, project, {
          id: llm,
          trace_id: root,
          parent_run_id: root,
          dotted_order: `a${root}.b${llm}`,
          name: "model",
          run_type: "llm",
          start_time: t0 + 10,
          extra: meta,
        }),
      ],
      t0,
    );
    await storage.traces.write([patch(tenantA, { id: root, end_time: t0 + 50, outputs: { a: 1 } })], t0);

    const [summary, ...more] = await storage.traces.traces(tenantA, project, { limit: 10, offset: 0 });
    assert.equal(more.length, 0);
    assert.equal(summary?.root.id, root);
    assert.equal(summary?.root.end_ms, t0 + 50);
    assert.deepEqual(summary?.root.inputs, { q: 1 });
    assert.deepEqual(summary?.root.outputs, { a: 1 });
    assert.equal(summary?.run_count, 2);
    assert.equal(summary?.total_tokens, 7);
    assert.equal(summary?.prompt_tokens, 5);
    const child = await storage.traces.get(tenantA, llm);
    assert.equal(child?.name, "model");
    assert.equal(child?.end_ms, t0 + 30);
    assert.equal(child?.project_id, project);
    assert.equal(child?.parent_run_id, root);
    assert.equal(child?.total_tokens, 7);
    assert.equal(child?.thread_id, "th-1");
    assert.deepEqual(
      (await storage.traces.trace(tenantA, root)).map((r) => r.id),
      [root, llm],
    );
    assert.equal(await storage.traces.get(tenantB, llm), undefined);
    assert.deepEqual(await storage.traces.trace(tenantB, root), []);
    assert.deepEqual(await storage.traces.traces(tenantB, project, { limit: 10, offset: 0 }), []);

    const stats = await storage.traces.stats(tenantA, project, {});
    assert.deepEqual(stats, {
      traces: 1,
      errors: 0,
      pending: 0,
      latency_avg_ms: 50,
      latency_p50_ms: 50,
      latency_p99_ms: 50,
      prompt_tokens: 5,
      completion_tokens: 2,
      total_tokens: 7,
    });
    assert.equal((await storage.traces.stats(tenantA, project, { startAfterMs: t0 + 1 })).traces, 0);
    assert.equal((await storage.traces.stats(tenantB, project, {})).traces, 0);

    const filtered = async (filter: Record<string, unknown>) =>
      (await storage.traces.traces(tenantA, project, { limit: 10, offset: 0, ...filter })).length;
    assert.equal(await filtered({ threadId: "th-1" }), 1);
    assert.equal(await filtered({ threadId: "th-2" }), 0);
    assert.equal(await filtered({ agentRunId: "ar-1" }), 1);
    assert.equal(await filtered({ status: "success" }), 1);
    assert.equal(await filtered({ status: "error" }), 0);
    assert.equal(await filtered({ startAfterMs: t0 + 1 }), 0);
    assert.equal(await filtered({ startBeforeMs: t0 + 1 }), 1);
    const q = (query: Record<string, unknown>) =>
      storage.traces.query(tenantA, { order: "asc", limit: 10, offset: 0, projectIds: [project], ...query });
    assert.deepEqual(
      (await q({ isRoot: false })).map((r) => r.id),
      [llm],
    );
    assert.deepEqual(
      (await q({ parentRunId: root })).map((r) => r.id),
      [llm],
    );
    assert.deepEqual(
      (await q({ runType: "chain" })).map((r) => r.id),
      [root],
    );
    assert.deepEqual(
      (await q({ traceId: root })).map((r) => r.id),
      [root, llm],
    );
  });

  it("traces: retention removes old runs and a project's oldest whole traces; removing a project removes its runs", async () => {
    const { storage, tenantA } = shared();
    const project = (
      await storage.projects.ensure({
        id: randomUUID(),
        tenant_id: tenantA,
        name: `retention-${randomUUID()}`,
        deployment_id: null,
        created_at: new Date().toISOString(),
      })
    ).id;
    const t0 = Date.UTC(2020, 0, 1);
    const roots = [randomUUID(), randomUUID(), randomUUID()];
    const writes = roots.flatMap((id, i) => [
      post(tenantA, project, { id, trace_id: id, name: "r", run_type: "chain", start_time: t0 + i * 1000 }),
      post(tenantA, project, {
        id: randomUUID(),
        trace_id: id,
        parent_run_id: id,
        name: "c",
        run_type: "tool",
        start_time: t0 + i * 1000 + 1,
      }),
    ]);
    await storage.traces.write(writes, t0);
    const size = (await storage.traces.projectSizes()).find((s) => s.project_id === project);
    assert.deepEqual(size, { project_id: project, runs: 6, bytes: 600 });
    assert.equal(await storage.traces.removeOldestTraces(project, 1), 2);
    assert.deepEqual(
      (await storage.traces.traces(tenantA, project, { limit: 10, offset: 0 })).map((s) => s.root.id),
      [roots[2], roots[1]],
    );
    assert.equal(await storage.traces.removeOlderThan(t0 + 1500), 2);
    assert.deepEqual(
      (await storage.traces.traces(tenantA, project, { limit: 10, offset: 0 })).map((s) => s.root.id),
      [roots[2]],
    );
    assert.equal(await storage.projects.remove(tenantA, project), true);
    assert.equal(await storage.traces.get(tenantA, roots[2] as string), undefined);
    assert.equal(await storage.projects.remove(tenantA, project), false);
    // A run written to the removed project afterwards (ingest had its id cached) is an orphan.
    const late = randomUUID();
    await storage.traces.write(
      [post(tenantA, project, { id: late, name: "late", start_time: Date.now() })],
      Date.now(),
    );
    assert.ok((await storage.traces.removeOrphans()) >= 1);
    assert.equal(await storage.traces.get(tenantA, late), undefined);
  });

  it("projects: ensure answers the existing project of a name; a deployment adopts a project without one", async () => {
    const { storage, tenantA } = shared();
    const name = `adopt-${randomUUID().slice(0, 8)}`;
    const first = await storage.projects.ensure({
      id: randomUUID(),
      tenant_id: tenantA,
      name,
      deployment_id: null,
      created_at: new Date().toISOString(),
    });
    const again = await storage.projects.ensure({ ...first, id: randomUUID() });
    assert.equal(again.id, first.id);
    const f = fixture(tenantA, name);
    await storage.deployments.create(f.deployment, f.revision, f.project);
    assert.equal((await storage.projects.ofDeployment(f.deployment.id))?.id, first.id);
    assert.equal((await storage.projects.byName(tenantA, name))?.deployment_id, f.deployment.id);
  });
}
