import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Dataset, Example } from "../../domain/sdk-types.js";
import { BadRequestError } from "../../errors.js";
import type { DatasetService, ExampleInput } from "../../services/datasets.js";
import { boundaryOf, parseMultipart } from "../multipart.js";
import { requireApiCaller } from "../plugin.js";
import { CsvList, Uuid } from "../query.js";

const Page = {
  limit: z.coerce.number().int().min(1).max(100).default(100),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
};

const DatasetBody = z.object({
  id: Uuid.optional(),
  name: z.string().min(1).max(1024),
  description: z.string().max(10_000).nullish(),
  data_type: z.enum(["kv", "llm", "chat"]).optional(),
  extra: z
    .object({ metadata: z.record(z.string(), z.unknown()).optional() })
    .passthrough()
    .nullish(),
});

function datasetToLangSmith(d: Dataset & { example_count: number }) {
  return {
    id: d.id,
    tenant_id: d.tenant_id,
    name: d.name,
    description: d.description,
    data_type: d.data_type,
    created_at: d.created_at,
    modified_at: d.modified_at,
    example_count: d.example_count,
    session_count: 0,
    metadata: d.metadata,
    inputs_schema_definition: null,
    outputs_schema_definition: null,
  };
}

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

/**
 * The SDK's examples upload (`POST …/platform/datasets/{id}/examples`): parts `<id>` (created_at,
 * metadata, source_run_id, use_source_run_io), `<id>.inputs`, `<id>.outputs`; attachments are
 * refused (not stored).
 */
function examplesOfMultipart(body: Buffer, boundary: string): ExampleInput[] {
  const byId = new Map<string, ExampleInput>();
  for (const part of parseMultipart(body, boundary)) {
    const [id = "", field, ...more] = part.name.split(".");
    if (!Uuid.safeParse(id).success || more.length > 0) {
      throw new BadRequestError(
        `Unknown multipart part "${part.name.slice(0, 100)}" (attachments are not stored).`,
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(part.data.toString("utf8"));
    } catch {
      throw new BadRequestError(`Part "${part.name.slice(0, 100)}" is not valid JSON.`);
    }
    const example = byId.get(id) ?? { id: id.toLowerCase() };
    byId.set(id, example);
    if (field === "inputs") example.inputs = value;
    else if (field === "outputs") example.outputs = value;
    else if (field === undefined && typeof value === "object" && value !== null) {
      const head = value as Record<string, unknown>;
      if (typeof head.created_at === "string") example.created_at = head.created_at;
      if (typeof head.metadata === "object" && head.metadata !== null) {
        example.metadata = head.metadata as Record<string, unknown>;
      }
      if (typeof head.source_run_id === "string") {
        const run = Uuid.safeParse(head.source_run_id);
        if (!run.success) throw new BadRequestError("source_run_id must be a UUID.");
        example.source_run_id = run.data;
      }
      example.use_source_run_io = head.use_source_run_io === true;
    } else throw new BadRequestError(`Unknown multipart part "${part.name.slice(0, 100)}".`);
  }
  return [...byId.values()];
}

/** LangSmith's datasets and examples: create, read, list, delete; examples from runs. */
export function datasetRoutes(datasets: DatasetService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post("/datasets", { schema: { hide: true, body: DatasetBody } }, async (request) => {
      const b = request.body;
      return datasetToLangSmith(
        await datasets.create(requireApiCaller(request), {
          id: b.id,
          name: b.name,
          description: b.description,
          data_type: b.data_type,
          metadata: b.extra?.metadata,
        }),
      );
    });

    const ListQuery = z.object({
      id: CsvList.pipe(z.array(Uuid).max(100)).optional(),
      name: z.string().max(1024).optional(),
      name_contains: z.string().max(1024).optional(),
      ...Page,
    });
    app.get("/datasets", { schema: { hide: true, querystring: ListQuery } }, async (request) => {
      const q = request.query;
      const list = await datasets.list(requireApiCaller(request), {
        ...(q.id ? { ids: q.id } : {}),
        ...(q.name !== undefined ? { name: q.name } : {}),
        ...(q.name_contains ? { nameContains: q.name_contains } : {}),
        limit: q.limit,
        offset: q.offset,
      });
      return list.map(datasetToLangSmith);
    });

    const DatasetParams = z.object({ dataset_id: Uuid });
    app.get("/datasets/:dataset_id", { schema: { hide: true, params: DatasetParams } }, async (request) =>
      datasetToLangSmith(await datasets.get(requireApiCaller(request), request.params.dataset_id)),
    );

    app.delete(
      "/datasets/:dataset_id",
      { schema: { hide: true, params: DatasetParams } },
      async (request) => {
        await datasets.remove(requireApiCaller(request), request.params.dataset_id);
        return {};
      },
    );

    for (const path of [
      "/v1/platform/datasets/:dataset_id/examples",
      "/platform/datasets/:dataset_id/examples",
    ]) {
      app.post(path, { schema: { hide: true, params: DatasetParams } }, async (request) => {
        const body = request.body as { multipart?: Buffer } | undefined;
        const boundary = boundaryOf(String(request.headers["content-type"] ?? ""));
        if (!body?.multipart || !boundary)
          throw new BadRequestError("Send multipart/form-data with a boundary.");
        const added = await datasets.addExamples(
          requireApiCaller(request),
          request.params.dataset_id,
          examplesOfMultipart(body.multipart, boundary),
        );
        return { example_ids: added.map((e) => e.id), count: added.length };
      });
    }

    const ExamplesQuery = z.object({
      dataset: Uuid.optional(),
      id: CsvList.pipe(z.array(Uuid).max(100)).optional(),
      ...Page,
    });
    app.get("/examples", { schema: { hide: true, querystring: ExamplesQuery } }, async (request) => {
      const q = request.query;
      const list = await datasets.listExamples(requireApiCaller(request), {
        ...(q.dataset ? { datasetId: q.dataset } : {}),
        ...(q.id ? { ids: q.id } : {}),
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
