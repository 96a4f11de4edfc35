// Editing evaluation datasets through the `langsmith` SDK (issue 30, item 2 follow-up):
// updateDataset, updateExample(s); isolation and bad input (splits and example filters:
// langsmith-sdk-dataset-splits.test.ts; versions: langsmith-sdk-dataset-versions.test.ts); on
// SQLite and PostgreSQL.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { ADMIN_KEY } from "./helpers.js";
import { collect, STORAGES, sdkClient, sdkStatus, useSdkPlane } from "./sdk-plane.js";

const status = sdkStatus;

for (const storage of STORAGES) {
  describe(`SDK dataset editing (${storage})`, () => {
    const suite = useSdkPlane(storage);

    it("updateDataset renames, redescribes and sets metadata; answers the dataset; names stay unique", async () => {
      const name = `edit-${randomUUID().slice(0, 8)}`;
      const dataset = await suite.ls.createDataset(name, { description: "first" });
      await suite.ls.createExamples({ datasetId: dataset.id, inputs: [{ q: 1 }] });
      const renamed = await suite.ls.updateDataset({
        datasetId: dataset.id,
        name: `${name}-2`,
        description: "second",
      });
      assert.equal(renamed.id, dataset.id);
      assert.equal(renamed.name, `${name}-2`);
      assert.equal(renamed.description, "second");
      assert.equal(renamed.example_count, 1);
      assert.ok(renamed.modified_at > dataset.modified_at, `${renamed.modified_at} > ${dataset.modified_at}`);
      const byName = await suite.ls.readDataset({ datasetName: `${name}-2` });
      assert.equal(byName.id, dataset.id);
      assert.equal(byName.description, "second");
      // By name, and the metadata LangSmith's DatasetUpdate carries.
      const tagged = await suite.ls.updateDataset({
        datasetName: `${name}-2`,
        metadata: { owner: "evals", tier: 2 },
      } as never);
      assert.deepEqual((tagged as { metadata?: unknown }).metadata, { owner: "evals", tier: 2 });
      assert.equal(tagged.description, "second");
      const found = await collect(suite.ls.listDatasets({ metadata: { owner: "evals" } }));
      assert.deepEqual(
        found.map((d) => d.id),
        [dataset.id],
      );
      assert.equal((await collect(suite.ls.listDatasets({ metadata: { owner: "other" } }))).length, 0);
      const other = await suite.ls.createDataset(`${name}-other`);
      await assert.rejects(suite.ls.updateDataset({ datasetId: other.id, name: `${name}-2` }), status(409));
      await assert.rejects(suite.ls.updateDataset({ datasetId: other.id, name: "" }), status(422));
      await assert.rejects(suite.ls.updateDataset({ datasetId: randomUUID(), name: "x" }), status(404));
      const badSchema = await suite.call("PATCH", `/datasets/${dataset.id}`, {
        inputs_schema_definition: { type: "object" },
      });
      assert.equal(badSchema.status, 422);
      assert.ok(Array.isArray(((await badSchema.json()) as { detail: unknown }).detail));
    });

    it("updateExample / updateExamples change inputs, outputs, metadata and split; modified_at moves", async () => {
      const dataset = await suite.ls.createDataset(`upd-${randomUUID().slice(0, 8)}`);
      const [a, b, c] = await suite.ls.createExamples({
        datasetId: dataset.id,
        inputs: [{ q: "a" }, { q: "b" }, { q: "c" }],
        outputs: [{ answer: "A" }, { answer: "B" }, { answer: "C" }],
        metadata: [{ source: "seed" }, { source: "seed" }, { source: "seed" }],
      });
      assert.ok(a && b && c);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const response = (await suite.ls.updateExample({
        id: a.id,
        inputs: { q: "a2" },
        outputs: { answer: "A2" },
        metadata: { source: "edited" },
        split: "test",
      })) as { count: number; example_ids: string[] };
      assert.deepEqual(response, { example_ids: [a.id], count: 1 });
      const a2 = await suite.ls.readExample(a.id);
      assert.deepEqual(a2.inputs, { q: "a2" });
      assert.deepEqual(a2.outputs, { answer: "A2" });
      assert.deepEqual(a2.metadata, { source: "edited", dataset_split: ["test"] });
      assert.ok((a2.modified_at ?? "") > (a.modified_at ?? ""), `${a2.modified_at} > ${a.modified_at}`);
      assert.equal(a2.created_at, a.created_at);
      // The deprecated (id, update) form; what is not sent stays (here the split and outputs).
      await suite.ls.updateExample(a.id, { inputs: { q: "a3" } });
      const a3 = await suite.ls.readExample(a.id);
      assert.deepEqual(a3.inputs, { q: "a3" });
      assert.deepEqual(a3.outputs, { answer: "A2" });
      assert.deepEqual(a3.metadata, { source: "edited", dataset_split: ["test"] });
      // Several at once, the dataset named in the update.
      await suite.ls.updateExamples([
        { id: b.id, dataset_id: dataset.id, metadata: { source: "bulk" } },
        { id: c.id, dataset_id: dataset.id, split: ["train", "test"] },
      ]);
      const [b2, c2] = await Promise.all([suite.ls.readExample(b.id), suite.ls.readExample(c.id)]);
      assert.deepEqual(b2.metadata, { source: "bulk", dataset_split: ["base"] });
      assert.deepEqual(c2.metadata, { source: "seed", dataset_split: ["train", "test"] });
      assert.deepEqual(c2.inputs, { q: "c" });

      // Through an endpoint ending in /api/v1 the SDK uses /platform/… without /v1.
      const v1 = sdkClient(`${suite.sp.base}/api/v1`);
      await v1.updateExample({ id: b.id, dataset_id: dataset.id, outputs: { answer: "B!" } });
      assert.deepEqual((await suite.ls.readExample(b.id)).outputs, { answer: "B!" });
    });

    it("example updates: another dataset's example or a missing one is a 404 and nothing changes; attachments and bad parts are 400", async () => {
      const dataset = await suite.ls.createDataset(`upd-bad-${randomUUID().slice(0, 8)}`);
      const elsewhere = await suite.ls.createDataset(`upd-else-${randomUUID().slice(0, 8)}`);
      const [mine] = await suite.ls.createExamples({ datasetId: dataset.id, inputs: [{ q: "mine" }] });
      const [theirs] = await suite.ls.createExamples({ datasetId: elsewhere.id, inputs: [{ q: "theirs" }] });
      assert.ok(mine && theirs);
      await assert.rejects(
        suite.ls.updateExamples([
          { id: mine.id, dataset_id: dataset.id, inputs: { q: "changed" } },
          { id: theirs.id, dataset_id: dataset.id, inputs: { q: "moved?" } },
        ]),
        status(404),
      );
      assert.deepEqual((await suite.ls.readExample(mine.id)).inputs, { q: "mine" });
      assert.deepEqual((await suite.ls.readExample(theirs.id)).inputs, { q: "theirs" });
      await assert.rejects(
        suite.ls.updateExample({ id: randomUUID(), dataset_id: dataset.id, inputs: { q: 1 } }),
        status(404),
      );
      await assert.rejects(
        suite.ls.updateExample({ id: mine.id, dataset_id: randomUUID(), inputs: { q: 1 } }),
        status(404),
      );
      await assert.rejects(
        suite.ls.updateExample({
          id: mine.id,
          dataset_id: dataset.id,
          attachments: { file: ["text/plain", new TextEncoder().encode("hi")] },
        } as never),
        (e: Error & { status?: number }) =>
          e.status === 400 && e.message.includes("attachments are not stored"),
      );
      // Bad parts the SDK would not send: inputs not an object, an empty split name, not multipart.
      const form = (parts: Record<string, unknown>) => {
        const data = new FormData();
        for (const [name, value] of Object.entries(parts)) {
          data.append(name, new Blob([JSON.stringify(value)], { type: "application/json" }));
        }
        return fetch(`${suite.sp.base}/v1/platform/datasets/${dataset.id}/examples`, {
          method: "PATCH",
          headers: { "x-api-key": ADMIN_KEY },
          body: data,
        });
      };
      assert.equal((await form({ [mine.id]: {}, [`${mine.id}.inputs`]: [1, 2] })).status, 400);
      assert.equal((await form({ [mine.id]: { split: "" } })).status, 400);
      assert.equal((await form({ [mine.id]: { metadata: "x" } })).status, 400);
      assert.equal(
        (await suite.call("PATCH", `/v1/platform/datasets/${dataset.id}/examples`, {})).status,
        400,
      );
      assert.deepEqual((await suite.ls.readExample(mine.id)).inputs, { q: "mine" });
    });

    it("hostile input to the editing routes is a 4xx, never a 5xx", async () => {
      const dataset = await suite.ls.createDataset(`hostile-${randomUUID().slice(0, 8)}`);
      const [example] = await suite.ls.createExamples({ datasetId: dataset.id, inputs: [{ q: 1 }] });
      const id = example?.id ?? "";
      const odd = [null, true, 0, -1, 1e308, "", "x".repeat(5000), [], {}, [null], { "": { "\u0000": [] } }];
      const requests: Array<[string, string, unknown]> = [];
      const ds = `/datasets/${dataset.id}`;
      const bulk = `/v1/platform/datasets/${dataset.id}/examples/metadata`;
      for (const v of odd) {
        requests.push(
          ["PATCH", ds, { name: v }],
          ["PATCH", ds, { description: v }],
          ["PATCH", ds, { metadata: v }],
        );
        requests.push(["PATCH", ds, v]);
        requests.push(["PUT", `${ds}/splits`, { split_name: v, examples: [id] }]);
        requests.push(["PUT", `${ds}/splits`, { split_name: "s", examples: v }]);
        requests.push(
          ["PUT", `${ds}/tags`, { as_of: v, tag: "t" }],
          ["PUT", `${ds}/tags`, { as_of: "2024-01-01", tag: v }],
        );
        requests.push([
          "PATCH",
          bulk,
          { example_ids: [id], operations: [{ key: v, operation: "SET", value: v }] },
        ]);
        requests.push([
          "PATCH",
          bulk,
          { example_ids: [id], operations: [{ key: "k", operation: "ARRAY_ADD", values: v }] },
        ]);
        requests.push([
          "PATCH",
          bulk,
          { example_ids: v, operations: [{ key: "k", operation: "SET", value: 1 }] },
        ]);
        requests.push(["PATCH", bulk, { example_ids: [id], operations: v }]);
        requests.push(["POST", "/v1/platform/datasets/examples/delete", { example_ids: v, hard_delete: v }]);
        const q = encodeURIComponent(typeof v === "string" ? v : JSON.stringify(v));
        for (const param of ["metadata", "splits", "as_of", "id", "limit", "offset"]) {
          requests.push(["GET", `/examples?dataset=${dataset.id}&${param}=${q}`, undefined]);
        }
        requests.push(
          ["GET", `${ds}/version?as_of=${q}`, undefined],
          ["GET", `${ds}/version?tag=${q}`, undefined],
        );
        requests.push(["GET", `${ds}/versions/diff?from_version=${q}&to_version=${q}`, undefined]);
        requests.push(
          ["GET", `${ds}/splits?as_of=${q}`, undefined],
          ["GET", `/datasets?metadata=${q}`, undefined],
        );
        requests.push(["DELETE", `/examples?example_ids=${q}`, undefined]);
      }
      for (const [method, path, body] of requests) {
        const res = await suite.call(method, path, body);
        assert.ok(
          res.status < 500,
          `${method} ${path} ${JSON.stringify(body)?.slice(0, 200)} → ${res.status}`,
        );
      }
      // Multipart bodies the SDK would not send.
      const raw = async (body: string, type = "multipart/form-data; boundary=b") =>
        (
          await fetch(`${suite.sp.base}/v1/platform/datasets/${dataset.id}/examples`, {
            method: "PATCH",
            headers: { "x-api-key": ADMIN_KEY, "content-type": type },
            body,
          })
        ).status;
      assert.equal(await raw("--b--"), 200); // no parts: nothing to change
      for (const body of [
        "",
        "garbage",
        `--b\r\nContent-Disposition: form-data; name="${id}"\r\n\r\n{"split": [1]}\r\n--b--`,
        `--b\r\nContent-Disposition: form-data; name="${id}.inputs"\r\n\r\nnot json\r\n--b--`,
        `--b\r\nContent-Disposition: form-data; name="${id}"\r\n\r\n"str"\r\n--b--`,
        `--b\r\nContent-Disposition: form-data; name="${id}.attachments_operations"\r\n\r\n{}\r\n--b--`,
      ]) {
        const code = await raw(body);
        assert.ok(code >= 400 && code < 500, `${body} → ${code}`);
      }
      assert.deepEqual((await suite.ls.readExample(id)).inputs, { q: 1 });
      // U+0000 in metadata: PostgreSQL's jsonb (which filters read) cannot hold it, so it is refused.
      await assert.rejects(
        suite.ls.createExamples({ datasetId: dataset.id, inputs: [{ q: 2 }], metadata: [{ k: "a\u0000b" }] }),
        status(400),
      );
      await assert.rejects(
        suite.ls.updateExample({ id, dataset_id: dataset.id, split: "s\u0000" }),
        status(400),
      );
      await assert.rejects(
        suite.ls.updateDataset({ datasetId: dataset.id, metadata: { "k\u0000": 1 } } as never),
        status(400),
      );
      assert.deepEqual(await suite.ls.listDatasetSplits({ datasetId: dataset.id }), ["base"]);
    });

    it("another workspace can neither edit nor see a dataset's examples and splits (404)", async () => {
      const dataset = await suite.ls.createDataset(`iso-${randomUUID().slice(0, 8)}`);
      const [example] = await suite.ls.createExamples({
        datasetId: dataset.id,
        inputs: [{ q: "secret" }],
        splits: ["train"],
      });
      assert.ok(example);
      const other = await suite.sp.plane.addTenant();
      const stranger = sdkClient(suite.sp.base, { apiKey: other.key });
      await assert.rejects(stranger.updateDataset({ datasetId: dataset.id, name: "taken" }), status(404));
      await assert.rejects(
        stranger.updateExample({ id: example.id, dataset_id: dataset.id, inputs: { q: "stolen" } }),
        status(404),
      );
      await assert.rejects(stranger.updateExample(example.id, { inputs: { q: "stolen" } }), status(404));
      await assert.rejects(stranger.listDatasetSplits({ datasetId: dataset.id }), status(404));
      await assert.rejects(
        stranger.updateDatasetSplits({ datasetId: dataset.id, splitName: "x", exampleIds: [example.id] }),
        status(404),
      );
      // The stranger's own dataset cannot take in the example either.
      const theirs = await stranger.createDataset(`iso-theirs-${randomUUID().slice(0, 8)}`);
      await assert.rejects(
        stranger.updateExample({ id: example.id, dataset_id: theirs.id, inputs: { q: "stolen" } }),
        status(404),
      );
      const res = await fetch(`${suite.sp.base}/v1/platform/datasets/${theirs.id}/examples/metadata`, {
        method: "PATCH",
        headers: { "x-api-key": other.key, "content-type": "application/json" },
        body: JSON.stringify({
          example_ids: [example.id],
          operations: [{ key: "x", operation: "SET", value: 1 }],
        }),
      });
      assert.equal(res.status, 207);
      assert.equal(
        ((await res.json()) as { statuses: Array<{ status: string }> }).statuses[0]?.status,
        "NOT_FOUND",
      );
      assert.equal((await collect(stranger.listExamples({ datasetId: dataset.id }))).length, 0);
      assert.equal(
        (await collect(stranger.listExamples({ datasetId: theirs.id, exampleIds: [example.id] }))).length,
        0,
      );
      // Ids are unique across workspaces: taking one is a conflict, never a 500 or a takeover.
      await assert.rejects(
        stranger.createExamples({ datasetId: theirs.id, inputs: [{ q: "copy" }], exampleIds: [example.id] }),
        status(409),
      );
      const clash = await fetch(`${suite.sp.base}/datasets`, {
        method: "POST",
        headers: { "x-api-key": other.key, "content-type": "application/json" },
        body: JSON.stringify({ id: dataset.id, name: `clash-${randomUUID().slice(0, 8)}` }),
      });
      assert.equal(clash.status, 409);
      const mine = await suite.ls.readExample(example.id);
      assert.deepEqual(mine.inputs, { q: "secret" });
      assert.deepEqual(mine.metadata, { dataset_split: ["train"] });
      assert.equal((await suite.ls.readDataset({ datasetId: dataset.id })).name, dataset.name);
    });
  });
}
