// Dataset splits and example filters through the `langsmith` SDK (issue 30, item 2 follow-up):
// splits on create and update, listExamples({splits}), listDatasetSplits, updateDatasetSplits,
// metadata containment, datasetName and exampleIds filters, bad filters; on SQLite and PostgreSQL.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { collect, STORAGES, sdkStatus, useSdkPlane } from "./sdk-plane.js";

const status = sdkStatus;

for (const storage of STORAGES) {
  describe(`SDK dataset splits and example filters (${storage})`, () => {
    const suite = useSdkPlane(storage);

    it("splits: base by default, split on create, listExamples({splits}), listDatasetSplits, updateDatasetSplits", async () => {
      const dataset = await suite.ls.createDataset(`splits-${randomUUID().slice(0, 8)}`);
      const plain = await suite.ls.createExample({ q: "plain" }, { a: 1 }, { datasetId: dataset.id });
      assert.deepEqual(plain.metadata, { dataset_split: ["base"] });
      const trained = await suite.ls.createExample(
        { q: "train" },
        { a: 2 },
        { datasetId: dataset.id, split: "train" },
      );
      assert.deepEqual(trained.metadata, { dataset_split: ["train"] });
      const [both] = await suite.ls.createExamples({
        datasetId: dataset.id,
        inputs: [{ q: "both" }],
        splits: [["train", "test"]],
        metadata: [{ kind: "x" }],
      });
      assert.deepEqual(both?.metadata, { kind: "x", dataset_split: ["train", "test"] });
      assert.deepEqual(await suite.ls.listDatasetSplits({ datasetId: dataset.id }), [
        "base",
        "test",
        "train",
      ]);
      const ids = async (splits: string[]) =>
        (await collect(suite.ls.listExamples({ datasetId: dataset.id, splits }))).map((e) => e.id).sort();
      assert.deepEqual(await ids(["train"]), [trained.id, both?.id].sort());
      assert.deepEqual(await ids(["test"]), [both?.id]);
      assert.deepEqual(await ids(["base", "test"]), [plain.id, both?.id].sort());
      assert.deepEqual(await ids(["nope"]), []);

      // The SDK's bulk metadata route (array_add / array_remove on dataset_split).
      await suite.ls.updateDatasetSplits({
        datasetId: dataset.id,
        splitName: "gold",
        exampleIds: [plain.id, trained.id],
      });
      assert.deepEqual((await suite.ls.readExample(plain.id)).metadata, { dataset_split: ["base", "gold"] });
      await suite.ls.updateDatasetSplits({
        datasetName: dataset.name,
        splitName: "train",
        exampleIds: [trained.id],
        remove: true,
      });
      assert.deepEqual((await suite.ls.readExample(trained.id)).metadata, { dataset_split: ["gold"] });
      assert.deepEqual(await ids(["gold"]), [plain.id, trained.id].sort());
      assert.deepEqual(await suite.ls.listDatasetSplits({ datasetName: dataset.name }), [
        "base",
        "gold",
        "test",
        "train",
      ]);

      // The bulk route answers 207 with a status per id; other datasets' examples are NOT_FOUND.
      const elsewhere = await suite.ls.createDataset(`splits-else-${randomUUID().slice(0, 8)}`);
      const [foreign] = await suite.ls.createExamples({ datasetId: elsewhere.id, inputs: [{ q: 1 }] });
      const bulk = await suite.call("PATCH", `/v1/platform/datasets/${dataset.id}/examples/metadata`, {
        example_ids: [plain.id, foreign?.id],
        operations: [
          { key: "reviewed", operation: "SET", value: true },
          { key: "labels", operation: "ARRAY_ADD", values: ["x", "y"] },
        ],
      });
      assert.equal(bulk.status, 207);
      const body = (await bulk.json()) as { statuses: Array<{ id: string; status: string }> };
      assert.deepEqual(
        body.statuses.map((s) => s.status),
        ["UPDATED", "NOT_FOUND"],
      );
      assert.deepEqual((await suite.ls.readExample(plain.id)).metadata, {
        dataset_split: ["base", "gold"],
        reviewed: true,
        labels: ["x", "y"],
      });
      assert.deepEqual((await suite.ls.readExample(foreign?.id ?? "")).metadata, { dataset_split: ["base"] });
      // The former route (PUT /datasets/{id}/splits).
      const legacy = await suite.call("PUT", `/datasets/${dataset.id}/splits`, {
        split_name: "legacy",
        examples: [both?.id],
        remove: false,
      });
      assert.equal(legacy.status, 200);
      assert.deepEqual((await suite.ls.readExample(both?.id ?? "")).metadata, {
        kind: "x",
        dataset_split: ["train", "test", "legacy"],
      });
      // Bad operations are 422; a missing dataset is a 404 that says so (the SDK falls back otherwise).
      const bad = await suite.call("PATCH", `/v1/platform/datasets/${dataset.id}/examples/metadata`, {
        example_ids: [plain.id],
        operations: [{ key: "x", operation: "DELETE" }],
      });
      assert.equal(bad.status, 422);
      const empty = await suite.call("PATCH", `/v1/platform/datasets/${dataset.id}/examples/metadata`, {
        example_ids: [plain.id],
        operations: [{ key: "dataset_split", operation: "array_add", values: [] }],
      });
      assert.equal(empty.status, 422);
      const missing = await suite.call("PATCH", `/v1/platform/datasets/${randomUUID()}/examples/metadata`, {
        example_ids: [plain.id],
        operations: [{ key: "x", operation: "SET", value: 1 }],
      });
      assert.equal(missing.status, 404);
      assert.match(await missing.text(), /dataset not found/i);
      await assert.rejects(
        suite.ls.updateDatasetSplits({ datasetId: randomUUID(), splitName: "x", exampleIds: [plain.id] }),
        status(404),
      );
      await assert.rejects(suite.ls.listDatasetSplits({ datasetId: randomUUID() }), status(404));
    });

    it("listExamples: metadata containment, datasetName, exampleIds; bad filters are 422", async () => {
      const dataset = await suite.ls.createDataset(`filter-${randomUUID().slice(0, 8)}`);
      const [gold, silver, plain] = await suite.ls.createExamples({
        datasetId: dataset.id,
        inputs: [{ q: 1 }, { q: 2 }, { q: 3 }],
        metadata: [
          { tier: "gold", n: 3, tags: ["a", "b"], nested: { ok: true, deep: { k: null } } },
          { tier: "silver", n: 3.5, tags: ["b"], nested: { ok: false } },
          {},
        ],
      });
      assert.ok(gold && silver && plain);
      const ids = async (metadata: Record<string, unknown>) =>
        (await collect(suite.ls.listExamples({ datasetId: dataset.id, metadata }))).map((e) => e.id).sort();
      assert.deepEqual(await ids({ tier: "gold" }), [gold.id]);
      assert.deepEqual(await ids({ n: 3 }), [gold.id]);
      assert.deepEqual(await ids({ n: "3" }), []);
      assert.deepEqual(await ids({ n: 3.5 }), [silver.id]);
      assert.deepEqual(await ids({ tags: ["b"] }), [gold.id, silver.id].sort());
      assert.deepEqual(await ids({ tags: ["a", "b"] }), [gold.id]);
      assert.deepEqual(await ids({ tags: "b" }), []);
      assert.deepEqual(await ids({ nested: { ok: true } }), [gold.id]);
      assert.deepEqual(await ids({ nested: { deep: { k: null } } }), [gold.id]);
      assert.deepEqual(await ids({ dataset_split: ["base"] }), [gold.id, silver.id, plain.id].sort());
      assert.deepEqual(await ids({ tier: "gold", nested: { ok: false } }), []);
      assert.deepEqual(await ids({}), [gold.id, silver.id, plain.id].sort());
      // The largest filter allowed runs on both databases (SQLite nests a condition per value).
      const many = Array.from({ length: 60 }, (_, i) => ({ [`k${i}`]: [i, `v${i}`] }));
      assert.deepEqual(await ids(Object.assign({}, ...many)), []);
      // datasetName, exampleIds (repeated `id`), and a page.
      const byName = await collect(suite.ls.listExamples({ datasetName: dataset.name }));
      assert.equal(byName.length, 3);
      const picked = await collect(
        suite.ls.listExamples({ datasetId: dataset.id, exampleIds: [gold.id, plain.id] }),
      );
      assert.deepEqual(picked.map((e) => e.id).sort(), [gold.id, plain.id].sort());
      const page = await collect(suite.ls.listExamples({ datasetId: dataset.id, limit: 2, offset: 1 }));
      assert.deepEqual(
        page.map((e) => e.id),
        [silver.id, plain.id],
      );
      for (const query of [
        `metadata=${encodeURIComponent("not json")}`,
        `metadata=${encodeURIComponent("[1]")}`,
        `metadata=${encodeURIComponent(JSON.stringify({ 'a"b': 1 }))}`,
        `metadata=${encodeURIComponent(JSON.stringify({ tags: Array.from({ length: 250 }, (_, i) => i) }))}`,
        "filter=eq(id%2C%201)",
        "id=not-a-uuid",
      ]) {
        const res = await suite.call("GET", `/examples?dataset=${dataset.id}&${query}`);
        assert.equal(res.status, 422, query);
      }
      const badDatasets = await suite.call("GET", `/datasets?metadata=${encodeURIComponent("{")}`);
      assert.equal(badDatasets.status, 422);
    });
  });
}
