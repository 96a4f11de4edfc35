import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  MAX_FILTER_LENGTH,
  parseRunFilter,
  type RunFilter,
  RunFilterError,
} from "../../domain/run-filter.js";
import { BadRequestError } from "../../errors.js";
import type { TracingService } from "../../services/tracing.js";
import { requireApiCaller } from "../plugin.js";
import { CsvList, Uuid } from "../query.js";
import { projectToLangSmith, runToLangSmith } from "../trace-wire.js";

/** `GET /sessions` query (the SDK's listProjects/readProject by name). */
const SessionsQuery = z.object({
  name: z.string().max(1024).optional(),
  name_contains: z.string().max(1024).optional(),
  id: CsvList.pipe(z.array(Uuid).max(100)).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(100),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
});

const UuidOrList = z.union([Uuid, z.array(Uuid).max(100)]).transform((v) => (Array.isArray(v) ? v : [v]));

/**
 * A filter expression, parsed while the body is validated: what does not parse or is not
 * supported is a 422 at `["body", "<field>"]` saying why (docs in domain/run-filter.ts).
 */
const FilterExpression = z
  .string()
  .max(MAX_FILTER_LENGTH)
  .transform((source, ctx): RunFilter | undefined => {
    if (source.trim() === "") return undefined;
    try {
      return parseRunFilter(source);
    } catch (error) {
      if (!(error instanceof RunFilterError)) throw error;
      ctx.addIssue({ code: "custom", message: error.message });
      return z.NEVER;
    }
  });

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
  reference_example: z.union([z.null(), z.array(z.never()).max(0)]).optional(),
  execution_order: z.number().nullish(),
});

/** The read endpoints of the LangSmith API: projects ("sessions") and runs, workspace API keys only. */
export function langsmithReadRoutes(tracing: TracingService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get("/sessions", { schema: { hide: true, querystring: SessionsQuery } }, async (request) => {
      const tenantId = requireApiCaller(request);
      const q = request.query;
      const projects = await tracing.listProjects(tenantId, {
        ...(q.name !== undefined ? { name: q.name } : {}),
        ...(q.name_contains ? { nameContains: q.name_contains } : {}),
        ...(q.id ? { ids: q.id } : {}),
        limit: q.limit,
        offset: q.offset,
      });
      return projects.map(projectToLangSmith);
    });

    app.get(
      "/sessions/:session_id",
      { schema: { hide: true, params: z.object({ session_id: Uuid }) } },
      async (request) =>
        projectToLangSmith(await tracing.project(requireApiCaller(request), request.params.session_id)),
    );

    app.delete(
      "/sessions/:session_id",
      { schema: { hide: true, params: z.object({ session_id: Uuid }) } },
      async (request, reply) => {
        await tracing.deleteProject(requireApiCaller(request), request.params.session_id);
        return reply.code(202).send({});
      },
    );

    app.get(
      "/runs/:run_id",
      { schema: { hide: true, params: z.object({ run_id: Uuid }) } },
      async (request) => runToLangSmith(await tracing.run(requireApiCaller(request), request.params.run_id)),
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
        filter: b.filter ?? undefined,
        traceFilter: b.trace_filter ?? undefined,
        treeFilter: b.tree_filter ?? undefined,
        order: b.order ?? "desc",
        limit,
        offset,
      });
      return {
        runs: runs.map(runToLangSmith),
        cursors: { next: runs.length === limit ? String(offset + limit) : null },
      };
    });
  };
}
