// The SDK's current run and project API against Berth (issue 30, item 2), through `langsmith`
// (the lockfile's version) on SQLite and PostgreSQL: client.runs.query with filters (metadata on
// any key), token roll-up to the root, cost from the price table, getRunUrl / runs.getURL to the
// dashboard's trace page, readProject with stats, project create/update/delete.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { Client } from "langsmith";
import { RunTree } from "langsmith/run_trees";
import { traceable } from "langsmith/traceable";
import { ADMIN_KEY } from "./helpers.js";
import { collect, type SdkPlane, STORAGES, sdkClient, sdkPlane } from "./sdk-plane.js";

/** gpt-4o-mini's shipped price, USD per token. */
const PROMPT = 0.15 / 1e6;
const COMPLETION = 0.6 / 1e6;

/** A trace: an "agent" chain with metadata over two model calls (10+4 and 20+6 tokens: 40). */
async function sendTrace(ls: Client, project: string, customer: string): Promise<void> {
  const model = traceable(
    async (prompt: number, completion: number) => ({
      answer: "ok",
      usage_metadata: { input_tokens: prompt, output_tokens: completion, total_tokens: prompt + completion },
    }),
    {
      name: "model",
      run_type: "llm",
      client: ls,
      project_name: project,
      tracingEnabled: true,
      metadata: { ls_model_name: "gpt-4o-mini" },
    },
  );
  const agent = traceable(
    async () => {
      await model(10, 4);
      await model(20, 6);
      return { done: true };
    },
    {
      name: "agent",
      client: ls,
      project_name: project,
      tracingEnabled: true,
      metadata: { customer, tier: 3 },
    },
  );
  await agent();
}

for (const storage of STORAGES) {
  describe(`SDK runs and projects (${storage})`, () => {
    let sp: SdkPlane;
    let ls: Client;
    const project = `runs-${randomUUID().slice(0, 8)}`;
    let projectId = "";

    before(async () => {
      sp = await sdkPlane(storage);
      ls = sdkClient(`${sp.base}/api/v1`, { webUrl: sp.base });
      await sendTrace(ls, project, "acme");
      await sendTrace(ls, project, "globex");
      await ls.awaitPendingTraceBatches();
      await sp.plane.plane.traceQueue.settled();
      projectId = (await ls.readProject({ projectName: project })).id;
    });
    after(async () => sp.close());

    it("client.runs.query: roots by metadata on any key, selected fields, subtree usage and cost", async () => {
      const roots = await collect(
        ls.runs.query({
          project_ids: [projectId],
          is_root: true,
          filter: 'and(eq(metadata_key, "customer"), eq(metadata_value, "acme"))',
          include_subtree_usage: true,
          selects: ["NAME", "RUN_TYPE", "STATUS", "TOTAL_TOKENS", "TOTAL_COST", "METADATA", "APP_PATH"],
        }),
      );
      assert.equal(roots.length, 1);
      const root = roots[0];
      assert.equal(root?.name, "agent");
      assert.equal(root?.run_type, "CHAIN");
      assert.equal(root?.status, "SUCCESS");
      assert.equal(root?.total_tokens, 40);
      assert.ok(
        Math.abs((root?.total_cost ?? 0) - (30 * PROMPT + 10 * COMPLETION)) < 1e-12,
        String(root?.total_cost),
      );
      assert.equal((root?.metadata as { customer?: string } | undefined)?.customer, "acme");
      assert.match(root?.app_path ?? "", new RegExp(`^/o/[0-9a-f-]{36}/projects/p/${projectId}/r/`));
      // A numeric metadata value compares by its text (children inherit their root's metadata);
      // an unknown key matches nothing.
      const tier = await collect(
        ls.runs.query({
          project_ids: [projectId],
          filter: 'and(eq(metadata_key, "tier"), eq(metadata_value, "3"))',
        }),
      );
      assert.equal(tier.length, 6);
      const none = await collect(
        ls.runs.query({
          project_ids: [projectId],
          filter: 'and(eq(metadata_key, "nope"), eq(metadata_value, "x"))',
        }),
      );
      assert.equal(none.length, 0);
      // Model runs only, their own tokens (no roll-up without include_subtree_usage); paging by cursor.
      const llms = await collect(
        ls.runs.query({
          project_ids: [projectId],
          run_type: "LLM",
          selects: ["PROMPT_TOKENS"],
          page_size: 3,
        }),
      );
      assert.equal(llms.length, 4);
      assert.deepEqual(llms.map((r) => r.prompt_tokens).sort(), [10, 10, 20, 20]);
      // has_error, trace_id and tree_filter narrow as the v1 query does.
      assert.equal((await collect(ls.runs.query({ project_ids: [projectId], has_error: true }))).length, 0);
      const traceId = root?.id ?? "";
      const tree = await collect(ls.runs.query({ project_ids: [projectId], trace_id: traceId }));
      assert.equal(tree.length, 3);
      const withModel = await collect(
        ls.runs.query({ project_ids: [projectId], is_root: true, tree_filter: 'eq(name, "model")' }),
      );
      assert.equal(withModel.length, 2);
    });

    it("client.runs.query refuses a filter it does not support with a 422 naming it", async () => {
      await assert.rejects(
        collect(ls.runs.query({ project_ids: [projectId], filter: "eq(bogus_field, 1)" })),
        (error: Error & { status?: number }) => error.status === 422 && /bogus_field/.test(error.message),
      );
    });

    it("listRuns/readRun: a root's tokens and cost are its model calls' sum", async () => {
      const roots = await collect(ls.listRuns({ projectName: project, isRoot: true }));
      assert.equal(roots.length, 2);
      for (const root of roots) {
        assert.equal(root.total_tokens, 40);
        assert.equal(root.prompt_tokens, 30);
        assert.equal(root.completion_tokens, 10);
        const cost = (root as unknown as { total_cost: number | null }).total_cost ?? 0;
        assert.ok(Math.abs(cost - (30 * PROMPT + 10 * COMPLETION)) < 1e-12, String(cost));
      }
      const read = await ls.readRun((roots[0] as { id: string }).id);
      assert.equal(read.total_tokens, 40);
    });

    it("readRun gives back the run's events, and first_token_time from its first new_token", async () => {
      // A project of its own: the other tests count this file's two traces.
      const run = new RunTree({
        name: "streamed",
        run_type: "llm",
        project_name: `${project}-events`,
        client: ls,
      });
      await run.postRun();
      const first = new Date(Date.now() + 5).toISOString();
      run.addEvent({ name: "new_token", time: first, kwargs: { token: "Hel" } });
      run.addEvent({
        name: "new_token",
        time: new Date(Date.now() + 9).toISOString(),
        kwargs: { token: "lo" },
      });
      await run.end({ text: "Hello" });
      await run.patchRun();
      await ls.awaitPendingTraceBatches();
      await sp.plane.plane.traceQueue.settled();
      const read = await ls.readRun(run.id);
      const names = (read.events ?? []).map((e) => (e as { name?: string }).name);
      assert.deepEqual(
        names.filter((n) => n === "new_token"),
        ["new_token", "new_token"],
        JSON.stringify(read.events),
      );
      // The SDK leaves the token itself out of what it sends; the event's time is kept.
      assert.equal(
        (read.events?.find((e) => e.name === "new_token") as { time?: string } | undefined)?.time,
        first,
      );
      assert.equal((read as { first_token_time?: string | null }).first_token_time, first);
      // A run without streamed tokens has none.
      const [root] = await collect(
        ls.listRuns({ projectName: project, isRoot: true, filter: 'eq(name, "agent")' }),
      );
      assert.equal((root as { first_token_time?: string | null }).first_token_time, null);
    });

    it("getRunUrl and runs.getURL point at the dashboard's trace page, which the control plane serves", async () => {
      const [root] = await collect(ls.listRuns({ projectName: project, isRoot: true }));
      assert.ok(root);
      const url = await ls.getRunUrl({ runId: root.id });
      const tenant = (await ls.readProject({ projectId })).tenant_id;
      assert.equal(
        url,
        `${sp.base}/o/${tenant}/projects/p/${projectId}/r/${root.id}?trace_id=${root.trace_id}`,
      );
      // The run-object form (the SDK builds it from the project and workspace) names the same page.
      const fromRun = await ls.getRunUrl({ run: root });
      assert.equal(fromRun, `${sp.base}/o/${tenant}/projects/p/${projectId}/r/${root.id}?poll=true`);
      const viaV2 = await ls.runs.getURL(root.id, {
        project_id: projectId,
        trace_id: root.trace_id ?? root.id,
      });
      assert.equal(viaV2.url, url);
      const page = await fetch(url, { headers: { accept: "text/html" } });
      assert.equal(page.status, 200);
      assert.match(page.headers.get("content-type") ?? "", /text\/html/);
      const retrieved = await ls.runs.retrieve(root.id, {
        project_id: projectId,
        selects: ["NAME", "TRACE_ID"],
      });
      assert.equal(retrieved.name, "agent");
    });

    it("the dashboard's API shows each trace's cost and each model run's own", async () => {
      const headers = { "x-api-key": ADMIN_KEY };
      const list = (await (
        await fetch(`${sp.base}/v2/tracing-projects/${projectId}/traces`, { headers })
      ).json()) as {
        resources: Array<{ trace_id: string; total_tokens: number; total_cost: number }>;
      };
      assert.equal(list.resources.length, 2);
      const expected = 30 * PROMPT + 10 * COMPLETION;
      for (const t of list.resources)
        assert.ok(Math.abs(t.total_cost - expected) < 1e-12, String(t.total_cost));
      const traceId = list.resources[0]?.trace_id ?? "";
      const trace = (await (
        await fetch(`${sp.base}/v2/tracing-projects/${projectId}/traces/${traceId}`, { headers })
      ).json()) as {
        total_cost: number;
        root: { total_cost: number | null; children: Array<{ total_cost: number; prompt_tokens: number }> };
      };
      assert.ok(Math.abs(trace.total_cost - expected) < 1e-12);
      assert.equal(trace.root.total_cost, null);
      const first = trace.root.children.find((c) => c.prompt_tokens === 10);
      assert.ok(first && Math.abs(first.total_cost - (10 * PROMPT + 4 * COMPLETION)) < 1e-12);
    });

    it("readProject({includeStats}) gives counts, latency, tokens, cost", async () => {
      const stats = await ls.readProject({ projectName: project, includeStats: true });
      assert.equal(stats.run_count, 2);
      assert.equal(stats.total_tokens, 80);
      assert.equal(stats.prompt_tokens, 60);
      assert.ok(typeof stats.latency_p50 === "number" && stats.latency_p50 >= 0);
      const cost = (stats as unknown as { total_cost: number }).total_cost;
      assert.ok(Math.abs(cost - 2 * (30 * PROMPT + 10 * COMPLETION)) < 1e-12, String(cost));
    });

    it("createProject / updateProject / deleteProject; a taken name is a 409", async () => {
      const name = `made-${randomUUID().slice(0, 8)}`;
      const made = await ls.createProject({
        projectName: name,
        description: "by hand",
        metadata: { team: "a" },
      });
      assert.equal(made.name, name);
      await assert.rejects(
        ls.createProject({ projectName: name }),
        (e: Error & { status?: number }) => e.status === 409,
      );
      const renamed = `${name}-2`;
      await ls.updateProject(made.id, { name: renamed, description: "changed", metadata: { team: "b" } });
      const read = await ls.readProject({ projectId: made.id });
      assert.equal(read.name, renamed);
      assert.equal(read.description, "changed");
      assert.equal((read.extra as { metadata: { team: string } }).metadata.team, "b");
      await ls.deleteProject({ projectId: made.id });
      await assert.rejects(
        ls.readProject({ projectId: made.id }),
        (e: Error & { status?: number }) => e.status === 404,
      );
    });

    it("a workspace's own price overrides the shipped one (/model-price-map), and removing it restores it", async () => {
      const headers = { "x-api-key": ADMIN_KEY, "content-type": "application/json" };
      const made = await fetch(`${sp.base}/model-price-map`, {
        method: "POST",
        headers,
        body: JSON.stringify({
          name: "ours",
          match_pattern: "^gpt-4o-mini$",
          prompt_cost: 1e-6,
          completion_cost: 2e-6,
        }),
      });
      assert.equal(made.status, 200);
      const price = (await made.json()) as { id: string };
      const costOfRoot = async () => {
        const [root] = await collect(ls.listRuns({ projectName: project, isRoot: true }));
        return (root as unknown as { total_cost: number }).total_cost;
      };
      assert.ok(Math.abs((await costOfRoot()) - (30e-6 + 20e-6)) < 1e-12);
      const listed = (await (await fetch(`${sp.base}/model-price-map`, { headers })).json()) as Array<{
        name: string;
      }>;
      assert.equal(listed[0]?.name, "ours");
      assert.ok(listed.some((p) => p.name === "gpt-4o-mini"));
      const bad = await fetch(`${sp.base}/model-price-map`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: "bad", match_pattern: "(", prompt_cost: 0, completion_cost: 0 }),
      });
      assert.equal(bad.status, 422);
      const removed = await fetch(`${sp.base}/model-price-map/${price.id}`, { method: "DELETE", headers });
      assert.equal(removed.status, 204);
      assert.ok(Math.abs((await costOfRoot()) - (30 * PROMPT + 10 * COMPLETION)) < 1e-12);
    });
  });
}
