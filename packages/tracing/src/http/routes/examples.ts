import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Example } from "../../domain/sdk-types.js";
import { MAX_NAME_BYTES } from "../../domain/splits.js";
import { BadRequestError } from "../../errors.js";
import type { DatasetService } from "../../services/datasets.js";
import { examplesToCreate, examplesToUpdate, SplitName } from "../example-parts.js";
import { boundaryOf } from "../multipart.js";
import { requireApiCaller } from "../plugin.js";
import { AsOf, CsvList, JsonFilter, Page, Uuid } from "../query.js";

function exampleToLangSmith(e: Example) {
  return {
    id: e.id,
    dataset_id: e.dataset_id,
    inputs: e.inputs,
    outputs: e.outputs,
    metadata: e.metadata,
    source_run_id: e.source_run_id,
    created_at: e.created_at,
    modified_at: e.modified_at,
    runs: [],
  };
}

/** The buffered multipart body of a request and its boundary (a 400 when it is not multipart). */
function multipartOf(request: { body: unknown; headers: Record<string, unknown> }) {
  const body = request.body as { multipart?: Buffer } | undefined;
  const boundary = boundaryOf(String(request.headers["content-type"] ?? ""));
  if (!body?.multipart || !boundary) throw new BadRequestError("Send multipart/form-data with a boundary.");
  return { body: body.multipart, boundary };
}

const Key = z
  .string()
  .min(1)
  .refine((s) => Buffer.byteLength(s) <= MAX_NAME_BYTES, `At most ${MAX_NAME_BYTES} bytes.`);
const Operation = z.preprocess(
  (op) =>
    typeof op === "object" && op !== null && typeof (op as { operation?: unknown }).operation === "string"
      ? { ...op, operation: (op as { operation: string }).operation.toUpperCase() }
      : op,
  z.discriminatedUnion("operation", [
    z.object({ key: Key, operation: z.literal("SET"), value: z.unknown() }),
    z.object({
      key: Key,
      operation: z.enum(["ARRAY_ADD", "ARRAY_REMOVE"]),
      values: z.array(SplitName).min(1).max(1000),
    }),
  ]),
);
/** LangSmith's bulk metadata change (limits as its API states them). */
const MetadataChange = z.object({
  example_ids: z.array(Uuid).min(1).max(10_000),
  operations: z
    .array(Operation)
    .min(1)
    .max(50)
    .refine((ops) => ops.filter((op) => op.operation !== "SET").length <= 10, "At most 10 array operations.")
    .refine(
      (ops) =>
        ops.every(
          (op) => op.operation !== "SET" || Buffer.byteLength(JSON.stringify(op.value ?? null)) <= 65_536,
        ),
      "A SET value is at most 64 KB.",
    ),
});

/** LangSmith's examples: upload, change, bulk metadata (splits), list, read, delete. */
export function exampleRoutes(datasets: DatasetService): FastifyPluginAsyncZod {
  return async (app) => {
    const DatasetParams = z.object({ dataset_id: Uuid });
    // The SDK's platform paths: `/v1/platform/…`, or `/platform/…` when its endpoint ends in /v1.
    for (const prefix of ["/v1/platform", "/platform"]) {
      app.post(
        `${prefix}/datasets/:dataset_id/examples`,
        { schema: { hide: true, params: DatasetParams } },
        async (request) => {
          const { body, boundary } = multipartOf(request);
          const added = await datasets.addExamples(
            requireApiCaller(request),
            request.params.dataset_id,
            examplesToCreate(body, boundary),
          );
          return { example_ids: added.map((e) => e.id), count: added.length };
        },
      );

      app.patch(
        `${prefix}/datasets/:dataset_id/examples`,
        { schema: { hide: true, params: DatasetParams } },
        async (request) => {
          const { body, boundary } = multipartOf(request);
          const changed = await datasets.updateExamples(
            requireApiCaller(request),
            request.params.dataset_id,
            examplesToUpdate(body, boundary),
          );
          return { example_ids: changed.map((e) => e.id), count: changed.length };
        },
      );

      app.patch(
        `${prefix}/datasets/:dataset_id/examples/metadata`,
        { schema: { hide: true, params: DatasetParams, body: MetadataChange } },
        async (request, reply) => {
          const statuses = await datasets.updateExampleMetadata(
            requireApiCaller(request),
            request.params.dataset_id,
            request.body.example_ids,
            request.body.operations,
          );
          return reply.code(207).send({ statuses });
        },
      );
    }

    // deleteExamples: soft (DELETE /examples?example_ids=…) or hard (the platform route).
    const DeleteQuery = z.object({ example_ids: CsvList.pipe(z.array(Uuid).min(1).max(1000)) });
    app.delete("/examples", { schema: { hide: true, querystring: DeleteQuery } }, async (request) => {
      await datasets.removeExamples(requireApiCaller(request), request.query.example_ids, false);
      return {};
    });
    const HardDelete = z.object({
      example_ids: z.array(Uuid).min(1).max(1000),
      hard_delete: z.boolean().default(false),
    });
    for (const prefix of ["/v1/platform", "/platform"]) {
      app.post(
        `${prefix}/datasets/examples/delete`,
        { schema: { hide: true, body: HardDelete } },
        async (request) => {
          await datasets.removeExamples(
            requireApiCaller(request),
            request.body.example_ids,
            request.body.hard_delete,
          );
          return {};
        },
      );
    }

    const ExamplesQuery = z.object({
      dataset: Uuid.optional(),
      id: CsvList.pipe(z.array(Uuid).max(1000)).optional(),
      splits: CsvList.pipe(z.array(SplitName).max(100)).optional(),
      metadata: JsonFilter.optional(),
      // A version: a time, a tag, or "latest".
      as_of: AsOf.optional(),
      filter: z
        .never({ error: "Example filter expressions are not supported; use metadata or splits." })
        .optional(),
      ...Page,
    });
    app.get("/examples", { schema: { hide: true, querystring: ExamplesQuery } }, async (request) => {
      const q = request.query;
      const list = await datasets.listExamples(requireApiCaller(request), {
        ...(q.dataset ? { datasetId: q.dataset } : {}),
        ...(q.id ? { ids: q.id } : {}),
        ...(q.splits ? { splits: q.splits } : {}),
        ...(q.metadata ? { metadata: q.metadata } : {}),
        asOf: q.as_of,
        limit: q.limit,
        offset: q.offset,
      });
      return list.map(exampleToLangSmith);
    });

    const ExampleParams = z.object({ example_id: Uuid });
    app.get("/examples/:example_id", { schema: { hide: true, params: ExampleParams } }, async (request) =>
      exampleToLangSmith(await datasets.example(requireApiCaller(request), request.params.example_id)),
    );

    app.delete(
      "/examples/:example_id",
      { schema: { hide: true, params: ExampleParams } },
      async (request) => {
        await datasets.removeExample(requireApiCaller(request), request.params.example_id);
        return {};
      },
    );
  };
}
