import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Dataset } from "../../domain/sdk-types.js";
import type { DatasetService } from "../../services/datasets.js";
import { SplitName } from "../example-parts.js";
import { requireApiCaller } from "../plugin.js";
import { AsOf, CsvList, JsonFilter, Page, Uuid } from "../query.js";

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

/** What `PATCH /datasets/{id}` changes (LangSmith's DatasetUpdate, the fields Berth stores). */
const DatasetChange = z.object({
  name: z.string().min(1).max(1024).optional(),
  description: z.string().max(10_000).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  // Stored by LangSmith, not by Berth: refused rather than dropped.
  inputs_schema_definition: z.null().optional(),
  outputs_schema_definition: z.null().optional(),
  transformations: z.null().optional(),
  patch_examples: z.null().optional(),
});

/** A version's tag: a name that is not a time and not "latest" (both mean something else in as_of). */
const Tag = z
  .string()
  .min(1)
  .max(255)
  .refine(
    (t) => t !== "latest" && !/^\d{4}-\d{2}-\d{2}/.test(t),
    'A tag may not be "latest" or start like a date.',
  );

/** LangSmith's datasets: create, read, list, update, delete; their splits and versions. */
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
      metadata: JsonFilter.optional(),
      ...Page,
    });
    app.get("/datasets", { schema: { hide: true, querystring: ListQuery } }, async (request) => {
      const q = request.query;
      const list = await datasets.list(requireApiCaller(request), {
        ...(q.id ? { ids: q.id } : {}),
        ...(q.name !== undefined ? { name: q.name } : {}),
        ...(q.name_contains ? { nameContains: q.name_contains } : {}),
        ...(q.metadata ? { metadata: q.metadata } : {}),
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
    app.patch(
      "/datasets/:dataset_id",
      { schema: { hide: true, params: DatasetParams, body: DatasetChange } },
      async (request) => {
        const b = request.body;
        return datasetToLangSmith(
          await datasets.update(requireApiCaller(request), request.params.dataset_id, {
            name: b.name,
            description: b.description,
            metadata: b.metadata,
          }),
        );
      },
    );

    const SplitsQuery = z.object({ as_of: AsOf.optional() });
    app.get(
      "/datasets/:dataset_id/splits",
      { schema: { hide: true, params: DatasetParams, querystring: SplitsQuery } },
      async (request) =>
        datasets.splits(requireApiCaller(request), request.params.dataset_id, request.query.as_of),
    );

    // Versions: each change of examples makes one, named by its time; tags name them.
    const VersionQuery = z.object({ as_of: AsOf.optional(), tag: Tag.optional() });
    app.get(
      "/datasets/:dataset_id/version",
      { schema: { hide: true, params: DatasetParams, querystring: VersionQuery } },
      async (request) =>
        datasets.versions.read(requireApiCaller(request), request.params.dataset_id, {
          ...(request.query.as_of !== undefined ? { asOf: request.query.as_of } : {}),
          ...(request.query.tag !== undefined ? { tag: request.query.tag } : {}),
        }),
    );

    const VersionsQuery = z.object({ search: z.string().max(1024).optional(), ...Page });
    app.get(
      "/datasets/:dataset_id/versions",
      { schema: { hide: true, params: DatasetParams, querystring: VersionsQuery } },
      async (request) =>
        datasets.versions.list(requireApiCaller(request), request.params.dataset_id, request.query),
    );

    const DiffQuery = z.object({ from_version: AsOf, to_version: AsOf });
    app.get(
      "/datasets/:dataset_id/versions/diff",
      { schema: { hide: true, params: DatasetParams, querystring: DiffQuery } },
      async (request) =>
        datasets.versions.diff(
          requireApiCaller(request),
          request.params.dataset_id,
          request.query.from_version,
          request.query.to_version,
        ),
    );

    const TagBody = z.object({ as_of: AsOf, tag: Tag });
    app.put(
      "/datasets/:dataset_id/tags",
      { schema: { hide: true, params: DatasetParams, body: TagBody } },
      async (request) =>
        datasets.versions.tag(
          requireApiCaller(request),
          request.params.dataset_id,
          request.body.as_of,
          request.body.tag,
        ),
    );

    // The SDK's former way to add examples to a split or take them out (newer SDKs fall back to it).
    const SplitsChange = z.object({
      split_name: SplitName,
      examples: z.array(Uuid).max(10_000),
      remove: z.boolean().default(false),
    });
    app.put(
      "/datasets/:dataset_id/splits",
      { schema: { hide: true, params: DatasetParams, body: SplitsChange } },
      async (request) => {
        const b = request.body;
        const statuses = await datasets.updateExampleMetadata(
          requireApiCaller(request),
          request.params.dataset_id,
          b.examples,
          [
            {
              key: "dataset_split",
              operation: b.remove ? "ARRAY_REMOVE" : "ARRAY_ADD",
              values: [b.split_name],
            },
          ],
        );
        return statuses.filter((s) => s.status === "UPDATED").map((s) => s.id);
      },
    );
  };
}
