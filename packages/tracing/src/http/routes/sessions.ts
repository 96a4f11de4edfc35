import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { TracingProject } from "../../domain/types.js";
import type { ProjectStats } from "../../services/projects.js";
import type { TracingService } from "../../services/tracing.js";
import { requireApiCaller } from "../plugin.js";
import { CsvList, Uuid } from "../query.js";
import { projectToLangSmith } from "../trace-wire.js";

const Flag = z
  .union([z.boolean(), z.enum(["true", "false"])])
  .transform((v) => v === true || v === "true")
  .optional();

/** `GET /sessions` query (the SDK's listProjects/readProject by name). */
const SessionsQuery = z.object({
  name: z.string().max(1024).optional(),
  name_contains: z.string().max(1024).optional(),
  id: CsvList.pipe(z.array(Uuid).max(100)).optional(),
  reference_dataset: CsvList.pipe(z.array(Uuid).max(100)).optional(),
  include_stats: Flag,
  limit: z.coerce.number().int().min(1).max(100).default(100),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
});

const Time = z
  .string()
  .max(100)
  .refine((t) => !Number.isNaN(Date.parse(t)), "not a time")
  .transform((t) => Date.parse(t));

/** `POST /sessions` / `PATCH /sessions/{id}` body, as createProject/updateProject send it. */
const SessionBody = z.object({
  id: Uuid.optional(),
  name: z.string().min(1).max(1024).nullish(),
  description: z.string().max(10_000).nullish(),
  extra: z.record(z.string(), z.unknown()).nullish(),
  reference_dataset_id: Uuid.nullish(),
  end_time: Time.nullish(),
});

function changesOf(body: z.infer<typeof SessionBody>) {
  const metadata = body.extra?.metadata;
  return {
    name: body.name,
    description: body.description,
    metadata:
      typeof metadata === "object" && metadata !== null && !Array.isArray(metadata)
        ? (metadata as Record<string, unknown>)
        : undefined,
    reference_dataset_id: body.reference_dataset_id,
    end_ms: body.end_time,
  };
}

/** A project with its stats in LangSmith's TracerSessionResult shape (latencies in seconds). */
function withStats(project: TracingProject, stats: ProjectStats) {
  const seconds = (ms: number | null) => (ms === null ? null : ms / 1000);
  return {
    ...projectToLangSmith(project),
    run_count: stats.traces,
    error_rate: stats.traces > 0 ? stats.errors / stats.traces : null,
    latency_p50: seconds(stats.latency_p50_ms),
    latency_p99: seconds(stats.latency_p99_ms),
    prompt_tokens: stats.prompt_tokens,
    completion_tokens: stats.completion_tokens,
    total_tokens: stats.total_tokens,
    prompt_cost: stats.prompt_cost,
    completion_cost: stats.completion_cost,
    total_cost: stats.total_cost,
    feedback_stats: stats.feedback_stats,
  };
}

/** LangSmith's projects ("sessions"): list, read (with stats), create, update, delete. */
export function sessionRoutes(tracing: TracingService): FastifyPluginAsyncZod {
  return async (app) => {
    const shape = async (tenantId: string, project: TracingProject, stats: boolean | undefined) =>
      stats
        ? withStats(project, await tracing.admin.stats(tenantId, project.id))
        : projectToLangSmith(project);

    app.get("/sessions", { schema: { hide: true, querystring: SessionsQuery } }, async (request) => {
      const tenantId = requireApiCaller(request);
      const q = request.query;
      const projects = await tracing.listProjects(tenantId, {
        ...(q.name !== undefined ? { name: q.name } : {}),
        ...(q.name_contains ? { nameContains: q.name_contains } : {}),
        ...(q.id ? { ids: q.id } : {}),
        ...(q.reference_dataset ? { referenceDatasetIds: q.reference_dataset } : {}),
        limit: q.limit,
        offset: q.offset,
      });
      return Promise.all(projects.map((p) => shape(tenantId, p, q.include_stats)));
    });

    app.get(
      "/sessions/:session_id",
      {
        schema: {
          hide: true,
          params: z.object({ session_id: Uuid }),
          querystring: z.object({ include_stats: Flag }),
        },
      },
      async (request) => {
        const tenantId = requireApiCaller(request);
        const project = await tracing.project(tenantId, request.params.session_id);
        return shape(tenantId, project, request.query.include_stats);
      },
    );

    app.post("/sessions", { schema: { hide: true, body: SessionBody } }, async (request) => {
      const tenantId = requireApiCaller(request);
      return projectToLangSmith(
        await tracing.admin.create(tenantId, { ...changesOf(request.body), id: request.body.id }),
      );
    });

    app.patch(
      "/sessions/:session_id",
      { schema: { hide: true, params: z.object({ session_id: Uuid }), body: SessionBody } },
      async (request) =>
        projectToLangSmith(
          await tracing.admin.update(
            requireApiCaller(request),
            request.params.session_id,
            changesOf(request.body),
          ),
        ),
    );

    app.delete(
      "/sessions/:session_id",
      { schema: { hide: true, params: z.object({ session_id: Uuid }) } },
      async (request, reply) => {
        await tracing.deleteProject(requireApiCaller(request), request.params.session_id);
        return reply.code(202).send({});
      },
    );
  };
}
