import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { BadRequestError } from "../../errors.js";
import type { RunView } from "../../services/run-views.js";
import type { TracingService } from "../../services/tracing.js";
import { FilterExpression } from "../filter-schema.js";
import { requireApiCaller } from "../plugin.js";
import { Uuid } from "../query.js";
import { runToLangSmith } from "../trace-wire.js";

const UuidOrList = z.union([Uuid, z.array(Uuid).max(100)]).transform((v) => (Array.isArray(v) ? v : [v]));

/**
 * `POST /runs/query` body (the SDK's listRuns). Filter expressions (`filter`, `trace_filter`,
 * `tree_filter`) take the common subset of LangSmith's grammar; the free-text `query` is not
 * supported: a request that sends one is refused, not answered with unfiltered runs.
 */
const RunsQueryBody = z.object({
  session: UuidOrList.nullish(),
  id: UuidOrList.nullish(),
  trace: Uuid.nullish(),
  parent_run: Uuid.nullish(),
  is_root: z.boolean().nullish(),
  run_type: z.string().max(100).nullish(),
  error: z.boolean().nullish(),
  start_time: z.string().max(100).nullish(),
  limit: z.number().int().min(1).max(100).nullish(),
  cursor: z
    .string()
    .regex(/^\d{1,10}$/)
    .nullish(),
  order: z.enum(["asc", "desc"]).nullish(),
  select: z.array(z.string().max(100)).max(100).nullish(),
  filter: FilterExpression.nullish(),
  trace_filter: FilterExpression.nullish(),
  tree_filter: FilterExpression.nullish(),
  query: z.null().optional(),
  reference_example: UuidOrList.nullish(),
  execution_order: z.number().nullish(),
});

/** The v1 run reads of the LangSmith API (readRun, listRuns), workspace API keys only. */
export function langsmithReadRoutes(tracing: TracingService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/runs/:run_id",
      { schema: { hide: true, params: z.object({ run_id: Uuid }) } },
      async (request) => {
        const tenantId = requireApiCaller(request);
        const [view] = await tracing.views.of(tenantId, [await tracing.run(tenantId, request.params.run_id)]);
        return runToLangSmith(view as RunView);
      },
    );

    app.post("/runs/query", { schema: { hide: true, body: RunsQueryBody } }, async (request) => {
      const tenantId = requireApiCaller(request);
      const b = request.body;
      const limit = b.limit ?? 100;
      const offset = b.cursor ? Number(b.cursor) : 0;
      const startAfterMs = b.start_time ? Date.parse(b.start_time) : undefined;
      if (startAfterMs !== undefined && Number.isNaN(startAfterMs)) {
        throw new BadRequestError("start_time is not a time.");
      }
      const runs = await tracing.queryRuns(tenantId, {
        projectIds: b.session ?? undefined,
        ids: b.id ?? undefined,
        traceId: b.trace ?? undefined,
        parentRunId: b.parent_run ?? undefined,
        isRoot: b.is_root ?? undefined,
        runType: b.run_type ?? undefined,
        error: b.error ?? undefined,
        startAfterMs,
        exampleIds: b.reference_example ?? undefined,
        filter: b.filter ?? undefined,
        traceFilter: b.trace_filter ?? undefined,
        treeFilter: b.tree_filter ?? undefined,
        order: b.order ?? "desc",
        limit,
        offset,
      });
      return {
        runs: (await tracing.views.of(tenantId, runs)).map(runToLangSmith),
        cursors: { next: runs.length === limit ? String(offset + limit) : null },
      };
    });
  };
}
