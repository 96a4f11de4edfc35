import { type TracingService, traceSummaryToWire, traceToWire } from "@berth-platform/tracing";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { BadRequestError } from "../../errors.js";
import { ProjectListQuery, ProjectParams } from "../../schemas/query.js";
import { COMMON_ERRORS, NoContent, pageOf, TracingProjectOut } from "../../schemas/responses.js";
import { projectToWire } from "../wire.js";

const tags = ["tracing projects"];

/** `…/traces` query: a time window on the root run's start, its status, the agent thread or run. */
const TraceListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
  start_time: z.string().max(100).optional(),
  end_time: z.string().max(100).optional(),
  status: z.enum(["success", "error", "pending"]).optional(),
  thread_id: z.string().max(200).optional(),
  run_id: z.string().max(200).optional(),
  /** Text any run of the trace holds: name, tags, metadata, inputs, outputs (case folded). */
  q: z.string().trim().max(500).optional(),
});

const Tokens = {
  prompt_tokens: z.number().nullable(),
  completion_tokens: z.number().nullable(),
  total_tokens: z.number().nullable(),
  // Cost in USD from the price table (the tracing package's run views; null: no priced model run).
  prompt_cost: z.number().nullable().optional(),
  completion_cost: z.number().nullable().optional(),
  total_cost: z.number().nullable().optional(),
};
const Timing = {
  status: z.enum(["success", "error", "pending"]),
  start_time: z.string().nullable(),
  end_time: z.string().nullable(),
  latency_ms: z.number().nullable(),
};

/** A trace in a project's list: its root run and the tree's totals (tokens of model runs). */
const TraceSummaryOut = z.object({
  trace_id: z.uuid(),
  name: z.string().nullable(),
  run_type: z.string().nullable(),
  error: z.string().nullable(),
  error_count: z.number(),
  tags: z.array(z.string()),
  ...Timing,
  thread_id: z.string().nullable(),
  run_id: z.string().nullable(),
  graph_id: z.string().nullable(),
  run_count: z.number(),
  ...Tokens,
});

interface RunNodeShape {
  children: RunNodeShape[];
}
/** A run of a trace with its children. */
const RunNodeOut: z.ZodType<RunNodeShape> = z.lazy(() =>
  z.object({
    id: z.uuid(),
    parent_run_id: z.uuid().nullable(),
    name: z.string().nullable(),
    run_type: z.string().nullable(),
    error: z.string().nullable(),
    ...Timing,
    inputs: z.unknown(),
    outputs: z.unknown(),
    metadata: z.record(z.string(), z.unknown()),
    tags: z.array(z.string()),
    ...Tokens,
    children: z.array(RunNodeOut),
  }),
);

/** One trace as a tree, with its totals. */
const TraceOut = z.object({
  trace_id: z.uuid(),
  project_id: z.uuid().nullable(),
  ...Timing,
  error_count: z.number(),
  thread_id: z.string().nullable(),
  run_id: z.string().nullable(),
  graph_id: z.string().nullable(),
  run_count: z.number(),
  ...Tokens,
  root: RunNodeOut.nullable(),
  orphans: z.array(RunNodeOut),
});

/** Totals of a project's traces (in a time window). */
const TraceStatsOut = z.object({
  traces: z.number(),
  errors: z.number(),
  pending: z.number(),
  latency_avg_ms: z.number().nullable(),
  latency_p50_ms: z.number().nullable(),
  latency_p99_ms: z.number().nullable(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
});

const TraceParams = ProjectParams.extend({ trace_id: z.uuid().transform((id) => id.toLowerCase()) });

function timeOf(text: string | undefined, field: string): number | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new BadRequestError(`${field} is not an ISO 8601 time.`);
  return ms;
}

/** `/v2/tracing-projects`: projects (made with deployments or by traces), their traces, deletion. */
export function projectRoutes(tracing: TracingService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/v2/tracing-projects",
      {
        schema: {
          tags,
          summary: "List tracing projects",
          querystring: ProjectListQuery,
          response: { 200: pageOf(TracingProjectOut), ...COMMON_ERRORS },
        },
      },
      async (request) => {
        const q = request.query;
        const resources = await tracing.listProjects(request.tenantId, {
          ...(q.name !== undefined ? { name: q.name } : {}),
          limit: q.limit,
          offset: q.offset,
        });
        return { resources: resources.map(projectToWire), offset: q.offset + resources.length };
      },
    );

    app.get(
      "/v2/tracing-projects/:project_id",
      {
        schema: {
          tags,
          summary: "Get a tracing project",
          params: ProjectParams,
          response: { 200: TracingProjectOut, ...COMMON_ERRORS },
        },
      },
      async (request) => projectToWire(await tracing.project(request.tenantId, request.params.project_id)),
    );

    app.delete(
      "/v2/tracing-projects/:project_id",
      {
        schema: {
          tags,
          summary: "Delete a tracing project and its traces",
          params: ProjectParams,
          response: { 204: NoContent, ...COMMON_ERRORS },
        },
      },
      async (request, reply) => {
        await tracing.deleteProject(request.tenantId, request.params.project_id);
        return reply.code(204).send(null);
      },
    );

    app.get(
      "/v2/tracing-projects/:project_id/traces",
      {
        schema: {
          tags,
          summary: "List a project's traces (newest first)",
          params: ProjectParams,
          querystring: TraceListQuery,
          response: { 200: pageOf(TraceSummaryOut), ...COMMON_ERRORS },
        },
      },
      async (request) => {
        const q = request.query;
        const traces = await tracing.traces(request.tenantId, request.params.project_id, {
          startAfterMs: timeOf(q.start_time, "start_time"),
          startBeforeMs: timeOf(q.end_time, "end_time"),
          status: q.status,
          threadId: q.thread_id,
          agentRunId: q.run_id,
          text: q.q || undefined,
          limit: q.limit,
          offset: q.offset,
        });
        return { resources: traces.map(traceSummaryToWire), offset: q.offset + traces.length };
      },
    );

    app.get(
      "/v2/tracing-projects/:project_id/stats",
      {
        schema: {
          tags,
          summary: "Totals of a project's traces: counts, latency, tokens",
          params: ProjectParams,
          querystring: TraceListQuery.pick({ start_time: true, end_time: true }),
          response: { 200: TraceStatsOut, ...COMMON_ERRORS },
        },
      },
      async (request) =>
        tracing.stats(request.tenantId, request.params.project_id, {
          startAfterMs: timeOf(request.query.start_time, "start_time"),
          startBeforeMs: timeOf(request.query.end_time, "end_time"),
        }),
    );

    app.get(
      "/v2/tracing-projects/:project_id/traces/:trace_id",
      {
        schema: {
          tags,
          summary: "Get a trace: its runs as a tree",
          params: TraceParams,
          response: { 200: TraceOut, ...COMMON_ERRORS },
        },
      },
      async (request) => {
        const { project_id, trace_id } = request.params;
        const runs = await tracing.trace(request.tenantId, project_id, trace_id);
        return traceToWire(trace_id, runs, await tracing.views.of(request.tenantId, runs, false));
      },
    );
  };
}
