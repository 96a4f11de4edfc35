// Dataset versions through the `langsmith` SDK (issue 30, item 2 follow-up): each change is a
// version, tags, asOf reads, diffs, soft and hard deletes, and evaluate() over a split and over a
// tagged version; on SQLite and PostgreSQL.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { evaluate } from "langsmith/evaluation";
import { collect, STORAGES, sdkClient, sdkStatus, useSdkPlane } from "./sdk-plane.js";

const status = sdkStatus;

for (const storage of STORAGES) {
  describe(`SDK dataset versions (${storage})`, () => {
    const suite = useSdkPlane(storage);

    it("versions: each change is one; readDatasetVersion, updateDatasetTag, listExamples/listDatasetSplits asOf, diff", async () => {
      const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
      const dataset = await suite.ls.createDataset(`ver-${randomUUID().slice(0, 8)}`);
      const ds = { datasetId: dataset.id };
      const [a, b] = await suite.ls.createExamples({ ...ds, inputs: [{ q: "a" }, { q: "b" }] });
      assert.ok(a && b);
      const v1 = a.modified_at ?? "";
      await tick();
      await suite.ls.updateExample({ id: a.id, dataset_id: dataset.id, inputs: { q: "a2" }, split: "train" });
      const v2 = (await suite.ls.readExample(a.id)).modified_at ?? "";
      await tick();
      const [c] = await suite.ls.createExamples({ ...ds, inputs: [{ q: "c" }] });
      const v3 = c?.modified_at ?? "";
      await tick();
      await suite.ls.deleteExample(b.id);
      assert.ok(v1 < v2 && v2 < v3, `${v1} < ${v2} < ${v3}`);

      const at = async (asOf: string) =>
        (await collect(suite.ls.listExamples({ ...ds, asOf }))).map((e) => [
          e.id,
          (e.inputs as { q: string }).q,
        ]);
      assert.deepEqual(await at(v1), [
        [a.id, "a"],
        [b.id, "b"],
      ]);
      assert.deepEqual(await at(v2), [
        [a.id, "a2"],
        [b.id, "b"],
      ]);
      assert.deepEqual(await at(v3), [
        [a.id, "a2"],
        [b.id, "b"],
        [c?.id, "c"],
      ]);
      assert.deepEqual(await at("latest"), [
        [a.id, "a2"],
        [c?.id, "c"],
      ]);
      assert.deepEqual(await at("2000-01-01T00:00:00Z"), []);
      // Filters apply to the version's examples.
      const trainAtV2 = await collect(suite.ls.listExamples({ ...ds, asOf: v2, splits: ["train"] }));
      assert.deepEqual(
        trainAtV2.map((e) => e.id),
        [a.id],
      );
      assert.deepEqual(await suite.ls.listDatasetSplits({ ...ds, asOf: v1 }), ["base"]);
      assert.deepEqual(await suite.ls.listDatasetSplits(ds), ["base", "train"]);

      // The nearest version at or before a time; the newest for now.
      const latest = await suite.ls.readDatasetVersion({ ...ds, asOf: new Date() });
      assert.ok(latest.as_of > v3, JSON.stringify(latest));
      assert.deepEqual(await suite.ls.readDatasetVersion({ ...ds, asOf: v2 }), { as_of: v2, tags: [] });
      const between = new Date(Date.parse(v2) - 1).toISOString();
      assert.equal((await suite.ls.readDatasetVersion({ ...ds, asOf: between })).as_of, v1);
      await assert.rejects(suite.ls.readDatasetVersion({ ...ds, asOf: "2000-01-01T00:00:00Z" }), status(404));

      // Tags name exact versions and move.
      await suite.ls.updateDatasetTag({ ...ds, asOf: v1, tag: "prod" });
      assert.deepEqual(await suite.ls.readDatasetVersion({ ...ds, tag: "prod" }), {
        as_of: v1,
        tags: ["prod"],
      });
      assert.deepEqual(await at("prod"), [
        [a.id, "a"],
        [b.id, "b"],
      ]);
      await suite.ls.updateDatasetTag({ datasetName: dataset.name, asOf: new Date(v3), tag: "prod" });
      assert.deepEqual(await suite.ls.readDatasetVersion({ ...ds, tag: "prod" }), {
        as_of: v3,
        tags: ["prod"],
      });
      await assert.rejects(suite.ls.updateDatasetTag({ ...ds, asOf: between, tag: "x" }), status(404));
      await assert.rejects(suite.ls.readDatasetVersion({ ...ds, tag: "nope" }), status(404));
      await assert.rejects(collect(suite.ls.listExamples({ ...ds, asOf: "nope" })), status(404));
      await assert.rejects(collect(suite.ls.listExamples({ ...ds, asOf: "2024-99-99" })), status(400));
      const badTag = await suite.call("PUT", `/datasets/${dataset.id}/tags`, { as_of: v1, tag: "latest" });
      assert.equal(badTag.status, 422);

      const versions = (await (await suite.call("GET", `/datasets/${dataset.id}/versions`)).json()) as Array<{
        as_of: string;
        tags: string[];
      }>;
      assert.deepEqual(
        versions.map((v) => v.as_of),
        [latest.as_of, v3, v2, v1],
      );
      assert.deepEqual(versions[1]?.tags, ["prod"]);
      const diff = await suite.ls.diffDatasetVersions({ ...ds, fromVersion: v1, toVersion: "latest" });
      assert.deepEqual(diff, {
        examples_added: [c?.id],
        examples_removed: [b.id],
        examples_modified: [a.id],
      });

      const other = await suite.sp.plane.addTenant();
      const stranger = sdkClient(suite.sp.base, { apiKey: other.key });
      await assert.rejects(stranger.readDatasetVersion({ ...ds, asOf: v1 }), status(404));
      await assert.rejects(stranger.updateDatasetTag({ ...ds, asOf: v1, tag: "mine" }), status(404));
      await assert.rejects(collect(stranger.listExamples({ ...ds, asOf: v1 })), status(404));
      assert.deepEqual((await suite.ls.readDatasetVersion({ ...ds, tag: "prod" })).as_of, v3);
    });

    it("deleteExamples: soft (past versions keep them) and hard (gone from every version); all or none", async () => {
      const dataset = await suite.ls.createDataset(`del-${randomUUID().slice(0, 8)}`);
      const [x, y, z, keep] = await suite.ls.createExamples({
        datasetId: dataset.id,
        inputs: [{ q: "x" }, { q: "y" }, { q: "z" }, { q: "keep" }],
      });
      assert.ok(x && y && z && keep);
      const v1 = x.modified_at ?? "";
      const list = async (asOf?: string) =>
        (await collect(suite.ls.listExamples({ datasetId: dataset.id, ...(asOf ? { asOf } : {}) }))).map(
          (e) => e.id,
        );
      await assert.rejects(suite.ls.deleteExamples([x.id, randomUUID()]), status(404));
      assert.equal((await list()).length, 4);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await suite.ls.deleteExamples([x.id, y.id]);
      assert.deepEqual(await list(), [z.id, keep.id]);
      assert.deepEqual(await list(v1), [x.id, y.id, z.id, keep.id]);
      await suite.ls.deleteExamples([z.id], { hardDelete: true });
      assert.deepEqual(await list(), [keep.id]);
      assert.deepEqual(await list(v1), [x.id, y.id, keep.id]);
      await assert.rejects(suite.ls.readExample(z.id), status(404));
      const other = await suite.sp.plane.addTenant();
      const stranger = sdkClient(suite.sp.base, { apiKey: other.key });
      await assert.rejects(stranger.deleteExamples([keep.id]), status(404));
      await assert.rejects(stranger.deleteExamples([keep.id], { hardDelete: true }), status(404));
      await assert.rejects(stranger.deleteExample(keep.id), status(404));
      assert.deepEqual(await list(), [keep.id]);
      const bad = await suite.call("DELETE", "/examples?example_ids=nope");
      assert.equal(bad.status, 422);
    });

    it("evaluate() over a split and over a tagged version of an edited dataset", async () => {
      const dataset = await suite.ls.createDataset(`eval-${randomUUID().slice(0, 8)}`);
      const [a, b] = await suite.ls.createExamples({
        datasetId: dataset.id,
        inputs: [{ q: "a" }, { q: "b" }, { q: "c" }],
        outputs: [{ answer: "A" }, { answer: "B" }, { answer: "C" }],
        splits: ["test", "test", "train"],
      });
      assert.ok(a && b);
      await suite.ls.updateDatasetTag({ datasetId: dataset.id, asOf: a.modified_at ?? "", tag: "v1" });
      await new Promise((resolve) => setTimeout(resolve, 5));
      // An edit after the tag: the reference answer of `b` changes, so only the tagged run scores 1.
      await suite.ls.updateExample({ id: b.id, dataset_id: dataset.id, outputs: { answer: "wrong" } });
      const target = async (inputs: Record<string, unknown>) => ({ answer: String(inputs.q).toUpperCase() });
      const exact = ({
        outputs,
        referenceOutputs,
      }: {
        outputs?: Record<string, unknown>;
        referenceOutputs?: Record<string, unknown>;
      }) => ({ key: "exact", score: outputs?.answer === referenceOutputs?.answer ? 1 : 0 });
      const scores = async (data: AsyncIterable<unknown>) => {
        const results = await evaluate(target, {
          data: data as never,
          evaluators: [exact],
          client: suite.ls,
          maxConcurrency: 2,
        });
        await suite.ls.awaitPendingTraceBatches();
        return results.results
          .map((r) => [(r.example.inputs as { q: string }).q, r.evaluationResults.results[0]?.score])
          .sort();
      };
      assert.deepEqual(await scores(suite.ls.listExamples({ datasetId: dataset.id, splits: ["test"] })), [
        ["a", 1],
        ["b", 0],
      ]);
      assert.deepEqual(
        await scores(suite.ls.listExamples({ datasetId: dataset.id, splits: ["test"], asOf: "v1" })),
        [
          ["a", 1],
          ["b", 1],
        ],
      );
    });
  });
}
