import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { BadRequestError, NotFoundError } from "../../errors.js";
import type { TracingService } from "../../services/tracing.js";
import { FilterExpression } from "../filter-schema.js";
import { requireApiCaller } from "../plugin.js";
import { CsvList, Uuid } from "../query.js";
import { RUN_SELECTS, runToV2 } from "../v2-wire.js";

const Time = z
  .string()
  .max(100)
  .refine((t) => !Number.isNaN(Date.parse(t)), "not an RFC 3339 time")
  .transform((t) => Date.parse(t));

const DAY_MS = 86_400_000;

/** `POST /api/v2/runs/query` body (the SDK's `client.runs.query`); `ai_search` is refused. */
const QueryBody = z.object({
  project_ids: z.array(Uuid).min(1).max(100).optional(),
  reference_dataset_id: Uuid.optional(),
  min_start_time: Time.optional(),
  max_start_time: Time.optional(),
  filter: FilterExpression.optional(),
  trace_filter: FilterExpression.optional(),
  tree_filter: FilterExpression.optional(),
  has_error: z.boolean().optional(),
  ids: z.array(Uuid).max(1000).optional(),
  is_root: z.boolean().optional(),
  run_type: z.enum(["TOOL", "CHAIN", "LLM", "RETRIEVER", "EMBEDDING", "PROMPT", "PARSER"]).optional(),
  trace_id: Uuid.optional(),
  reference_examples: z.array(Uuid).max(1000).optional(),
  selects: z.array(z.enum(RUN_SELECTS)).max(RUN_SELECTS.length).optional(),
  include_subtree_usage: z.boolean().optional(),
  cursor: z
    .string()
    .regex(/^\d{1,10}$/)
    .optional(),
  page_size: z.number().int().min(1).max(100).optional(),
  ai_search: z.never().optional(),
});

/** The web origin of the request (share URLs are rooted there, as LangSmith roots them at its app). */
export function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/**
 * The generated client's run endpoints (`client.runs.query`, `.retrieve`, `.getURL`), served at
 * `/api/v2/runs…` under the endpoint's base.
 */
export function runsV2Routes(tracing: TracingService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post("/runs/query", { schema: { hide: true, body: QueryBody } }, async (request) => {
      const tenantId = requireApiCaller(request);
      const b = request.body;
      if ((b.project_ids === undefined) === (b.reference_dataset_id === undefined)) {
        throw new BadRequestError("Set exactly one of project_ids and reference_dataset_id.");
      }
      let projectIds = b.project_ids;
      let datasetId: string | null = null;
      if (b.reference_dataset_id) {
        datasetId = b.reference_dataset_id;
        const projects = await tracing.listProjects(tenantId, {
          referenceDatasetIds: [datasetId],
          limit: 100,
          offset: 0,
        });
        projectIds = projects.map((p) => p.id);
      }
      const now = Date.now();
      const limit = b.page_size ?? 100;
      const offset = b.cursor ? Number(b.cursor) : 0;
      const runs = await tracing.queryRuns(tenantId, {
        projectIds,
        ids: b.ids,
        traceId: b.trace_id,
        isRoot: b.is_root,
        runType: b.run_type?.toLowerCase(),
        error: b.has_error,
        // LangSmith's defaults: the last day (a dataset's experiments: from their beginning).
        startAfterMs: b.min_start_time ?? (datasetId ? undefined : now - DAY_MS),
        startBeforeMs: b.max_start_time ?? now + 1,
        exampleIds: b.reference_examples,
        filter: b.filter,
        traceFilter: b.trace_filter,
        treeFilter: b.tree_filter,
        order: "desc",
        limit,
        offset,
      });
      const views = await tracing.views.of(tenantId, runs, b.include_subtree_usage === true);
      const selects = b.selects ?? [];
      const shares = selects.includes("SHARE_URL")
        ? await tracing.shareUrls(tenantId, runs, originOf(request))
        : undefined;
      return {
        items: views.map((view) => runToV2(view, selects, { shareUrl: shares?.get(view.run.id), datasetId })),
        next_cursor: runs.length === limit ? String(offset + limit) : null,
      };
    });

    app.get(
      "/runs/:run_id",
      {
        schema: {
          hide: true,
          params: z.object({ run_id: Uuid }),
          querystring: z.object({
            project_id: Uuid,
            selects: CsvList.pipe(z.array(z.enum(RUN_SELECTS)).max(RUN_SELECTS.length)).optional(),
            start_time: z.string().max(100).optional(),
          }),
        },
      },
      async (request) => {
        const tenantId = requireApiCaller(request);
        const run = await tracing.run(tenantId, request.params.run_id);
        if (run.project_id !== request.query.project_id) throw new NotFoundError(`Run ${run.id} not found.`);
        const [view] = await tracing.views.of(tenantId, [run], false);
        const selects = request.query.selects ?? [];
        const shares = selects.includes("SHARE_URL")
          ? await tracing.shareUrls(tenantId, [run], originOf(request))
          : undefined;
        return runToV2(view as NonNullable<typeof view>, selects, { shareUrl: shares?.get(run.id) });
      },
    );

    app.get(
      "/runs/:run_id/url",
      {
        schema: {
          hide: true,
          params: z.object({ run_id: Uuid }),
          querystring: z.object({
            project_id: Uuid,
            trace_id: Uuid,
            start_time: z.string().max(100).optional(),
          }),
        },
      },
      async (request) => {
        const tenantId = requireApiCaller(request);
        const run = await tracing.run(tenantId, request.params.run_id);
        if (run.project_id !== request.query.project_id) throw new NotFoundError(`Run ${run.id} not found.`);
        const [view] = await tracing.views.of(tenantId, [run], false);
        return { url: `${originOf(request)}${view?.app_path ?? ""}` };
      },
    );
  };
}
