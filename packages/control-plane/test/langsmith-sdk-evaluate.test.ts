// Feedback, datasets and examples, evaluate(), and shared runs through the `langsmith` SDK (issue
// 30, item 2) on SQLite and PostgreSQL.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { Client } from "langsmith";
import { evaluate } from "langsmith/evaluation";
import { traceable } from "langsmith/traceable";
import { collect, type SdkPlane, STORAGES, sdkClient, sdkPlane } from "./sdk-plane.js";

/** Sends one traced call; answers its root run's id once stored. */
async function traced(sp: SdkPlane, ls: Client, project: string, input: string): Promise<string> {
  const fn = traceable(async (q: string) => ({ answer: q.toUpperCase() }), {
    name: "shout",
    client: ls,
    project_name: project,
    tracingEnabled: true,
  });
  await fn(input);
  await ls.awaitPendingTraceBatches();
  await sp.plane.plane.traceQueue.settled();
  const runs = await collect(ls.listRuns({ projectName: project, isRoot: true }));
  const run = runs.find((r) => (r.inputs as { input?: string }).input === input);
  assert.ok(run, JSON.stringify(runs.map((r) => r.inputs)));
  return run.id;
}

for (const storage of STORAGES) {
  describe(`SDK feedback, datasets, evaluate, sharing (${storage})`, () => {
    let sp: SdkPlane;
    let ls: Client;
    const project = `fb-${randomUUID().slice(0, 8)}`;

    before(async () => {
      sp = await sdkPlane(storage);
      ls = sdkClient(sp.base);
    });
    after(async () => sp.close());

    it("feedback: create (direct and batched with runs), read, list, update, delete; stats on runs and projects", async () => {
      const runId = await traced(sp, ls, project, "hello");
      const projectId = (await ls.readProject({ projectName: project })).id;
      const direct = await ls.createFeedback(runId, "correctness", {
        score: 1,
        comment: "right",
        sessionId: projectId,
      });
      // With the trace id the SDK batches feedback into the multipart ingest request.
      const batched = await ls.createFeedback(runId, "tone", {
        value: "calm",
        traceId: runId,
        sessionId: projectId,
      });
      await ls.awaitPendingTraceBatches();
      const read = await ls.readFeedback(direct.id);
      assert.equal(read.key, "correctness");
      assert.equal(read.score, 1);
      assert.equal(read.comment, "right");
      const listed = await collect(ls.listFeedback({ runIds: [runId] }));
      assert.deepEqual(listed.map((f) => f.key).sort(), ["correctness", "tone"]);
      assert.equal(listed.find((f) => f.id === batched.id)?.value, "calm");
      await ls.updateFeedback(direct.id, { score: 0, comment: "wrong after all" });
      assert.equal((await ls.readFeedback(direct.id)).score, 0);
      const run = await ls.readRun(runId);
      const stats = run.feedback_stats as Record<string, { n: number; avg: number | null }>;
      assert.equal(stats.correctness?.n, 1);
      assert.equal(stats.correctness?.avg, 0);
      const projectStats = await ls.readProject({ projectName: project, includeStats: true });
      assert.deepEqual(Object.keys(projectStats.feedback_stats ?? {}).sort(), ["correctness", "tone"]);
      await ls.deleteFeedback(direct.id);
      await assert.rejects(ls.readFeedback(direct.id), (e: Error & { status?: number }) => e.status === 404);
      assert.equal((await collect(ls.listFeedback({ runIds: [runId] }))).length, 1);
    });

    it("datasets and examples: create, from a run, list, read; evaluate() runs an experiment and its results read back", async () => {
      const name = `ds-${randomUUID().slice(0, 8)}`;
      const dataset = await ls.createDataset(name, { description: "shouting" });
      await ls.createExamples({
        datasetId: dataset.id,
        inputs: [{ q: "a" }, { q: "b" }],
        outputs: [{ answer: "A" }, { answer: "B" }],
      });
      // An example made from a traced run takes its inputs and outputs.
      const runId = await traced(sp, ls, project, "c");
      const fromRun = await ls.createExample({
        dataset_id: dataset.id,
        source_run_id: runId,
        use_source_run_io: true,
      } as never);
      assert.deepEqual(fromRun.inputs, { input: "c" });
      assert.deepEqual(fromRun.outputs, { answer: "C" });
      assert.equal((await ls.readDataset({ datasetName: name })).example_count, 3);
      const examples = await collect(ls.listExamples({ datasetId: dataset.id }));
      assert.equal(examples.length, 3);
      assert.equal((await collect(ls.listDatasets({ datasetName: name }))).length, 1);

      const target = async (inputs: Record<string, unknown>) => ({
        answer: String(inputs.q ?? inputs.input ?? "").toUpperCase(),
      });
      const exact = ({
        outputs,
        referenceOutputs,
      }: {
        outputs?: Record<string, unknown>;
        referenceOutputs?: Record<string, unknown>;
      }) => ({
        key: "exact",
        score: outputs?.answer === referenceOutputs?.answer ? 1 : 0,
      });
      const results = await evaluate(target, {
        data: name,
        evaluators: [exact],
        client: ls,
        experimentPrefix: "shout",
        maxConcurrency: 2,
      });
      await ls.awaitPendingTraceBatches();
      await sp.plane.plane.traceQueue.settled();
      assert.equal(results.results.length, 3);
      for (const row of results.results) {
        assert.equal(row.evaluationResults.results[0]?.key, "exact");
        assert.equal(row.evaluationResults.results[0]?.score, 1);
      }
      // The experiment is a project of the dataset; its runs name their examples and carry the scores.
      const experiments = await collect(ls.listProjects({ referenceDatasetId: dataset.id }));
      assert.equal(experiments.length, 1);
      const experiment = experiments[0];
      assert.ok(experiment?.name?.startsWith("shout"), JSON.stringify(experiment));
      if (!experiment) return;
      const runs = await collect(ls.listRuns({ projectId: experiment.id, isRoot: true }));
      assert.equal(runs.length, 3);
      assert.deepEqual(new Set(runs.map((r) => r.reference_example_id)), new Set(examples.map((e) => e.id)));
      // The generated client finds the experiment's runs by their dataset, with their scores.
      const byDataset = await collect(
        ls.runs.query({
          reference_dataset_id: dataset.id,
          is_root: true,
          selects: ["REFERENCE_EXAMPLE_ID", "REFERENCE_DATASET_ID", "FEEDBACK_STATS"],
        }),
      );
      assert.equal(byDataset.length, 3);
      assert.ok(byDataset.every((r) => r.reference_dataset_id === dataset.id && r.reference_example_id));
      assert.ok(
        byDataset.every(
          (r) => (r.feedback_stats as Record<string, { avg: number }> | undefined)?.exact?.avg === 1,
        ),
        JSON.stringify(byDataset),
      );
      const feedback = await collect(
        ls.listFeedback({ runIds: runs.map((r) => r.id), feedbackKeys: ["exact"] }),
      );
      assert.equal(feedback.length, 3);
      assert.ok(feedback.every((f) => f.score === 1));
      const stats = await ls.readProject({ projectId: experiment.id, includeStats: true });
      assert.equal((stats.feedback_stats as Record<string, { avg: number }>).exact?.avg, 1);
      await ls.deleteDataset({ datasetId: dataset.id });
      await assert.rejects(
        ls.readDataset({ datasetId: dataset.id }),
        (e: Error & { status?: number }) => e.status === 404,
      );
    });

    it("shareRun: a public read-only link (page for browsers, JSON otherwise), readRunSharedLink, unshareRun", async () => {
      const runId = await traced(sp, ls, project, "share me");
      const url = await ls.shareRun(runId);
      const token = url.split("/public/")[1]?.split("/")[0] ?? "";
      assert.equal(await ls.readRunSharedLink(runId), url);
      const publicUrl = `${sp.base}/public/${token}/r`;
      const page = await fetch(publicUrl, { headers: { accept: "text/html" } });
      assert.equal(page.status, 200);
      assert.match(await page.text(), /share me/);
      const json = (await (await fetch(publicUrl)).json()) as { run_id: string; runs: Array<{ id: string }> };
      assert.equal(json.run_id, runId);
      // listSharedRuns (deprecated) builds its URL without "?" in 0.12.0; its successor:
      const shared = await ls.public.runs.query(token, { selects: ["NAME", "INPUTS_PREVIEW"] });
      assert.deepEqual(
        shared.items?.map((r) => r.id),
        [runId],
      );
      assert.equal(shared.items?.[0]?.name, "shout");
      const one = await ls.public.runs.retrieve(runId, { share_token: token, selects: ["NAME"] } as never);
      assert.equal((one as { name?: string }).name, "shout");
      await ls.unshareRun(runId);
      assert.equal(await ls.readRunSharedLink(runId), undefined);
      assert.equal((await fetch(publicUrl)).status, 404);
    });

    it("deleting a project removes its runs' feedback and public links", async () => {
      const doomed = `doomed-${randomUUID().slice(0, 8)}`;
      const runId = await traced(sp, ls, doomed, "gone soon");
      const note = await ls.createFeedback(runId, "note", {
        score: 1,
        sessionId: (await ls.readProject({ projectName: doomed })).id,
      });
      const url = await ls.shareRun(runId);
      await ls.deleteProject({ projectName: doomed });
      await assert.rejects(ls.readFeedback(note.id), (e: Error & { status?: number }) => e.status === 404);
      const token = url.split("/public/")[1]?.split("/")[0] ?? "";
      assert.equal((await fetch(`${sp.base}/public/${token}/r`)).status, 404);
    });

    it("another workspace sees none of it (404)", async () => {
      const other = await sp.plane.addTenant();
      const stranger = sdkClient(sp.base, { apiKey: other.key });
      const runId = await traced(sp, ls, project, "private");
      await assert.rejects(stranger.readRun(runId), (e: Error & { status?: number }) => e.status === 404);
      await assert.rejects(stranger.shareRun(runId), (e: Error & { status?: number }) => e.status === 404);
      assert.equal((await collect(stranger.listFeedback({ runIds: [runId] }))).length, 0);
      const projectId = (await ls.readProject({ projectName: project })).id;
      await assert.rejects(
        stranger.readProject({ projectId }),
        (e: Error & { status?: number }) => e.status === 404,
      );
      assert.equal((await collect(stranger.runs.query({ project_ids: [projectId] }))).length, 0);
      await assert.rejects(
        stranger.runs.retrieve(runId, { project_id: projectId }),
        (e: Error & { status?: number }) => e.status === 404,
      );
      const note = await ls.createFeedback(runId, "note", { score: 1, sessionId: projectId });
      await assert.rejects(
        stranger.readFeedback(note.id),
        (e: Error & { status?: number }) => e.status === 404,
      );
      await assert.rejects(
        stranger.updateFeedback(note.id, { score: 0 }),
        (e: Error & { status?: number }) => e.status === 404,
      );
      const dataset = await ls.createDataset(`private-${randomUUID().slice(0, 8)}`);
      await assert.rejects(
        stranger.readDataset({ datasetId: dataset.id }),
        (e: Error & { status?: number }) => e.status === 404,
      );
      await assert.rejects(
        stranger.createExamples({ datasetId: dataset.id, inputs: [{ q: 1 }] }),
        (e: Error & { status?: number }) => e.status === 404,
      );
    });

    it("retention: feedback and share links of runs past retention go with them", async () => {
      const runId = await traced(sp, ls, project, "old news");
      const projectId = (await ls.readProject({ projectName: project })).id;
      const note = await ls.createFeedback(runId, "note", { score: 1, sessionId: projectId });
      const url = await ls.shareRun(runId);
      // A sweep a year from now: every run is past the 14-day retention.
      await sp.plane.plane.tracing.sweep(Date.now() + 365 * 86_400_000);
      await assert.rejects(ls.readFeedback(note.id), (e: Error & { status?: number }) => e.status === 404);
      assert.equal((await fetch(url.replace(/^https?:\/\/[^/]+/, sp.base))).status, 404);
    });
  });
}
