import type { TracingService } from "@berth-platform/tracing";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { BadRequestError } from "../../errors.js";
import { ProjectParams } from "../../schemas/query.js";
import { COMMON_ERRORS } from "../../schemas/responses.js";

const HOUR_MS = 3_600_000;
/** The widest window a series covers (the retention default is shorter). */
const MAX_WINDOW_MS = 90 * 24 * HOUR_MS;

/** `…/series` query: the window (default: the last 24 hours) and how many buckets split it. */
const SeriesQuery = z.object({
  start_time: z.string().max(100).optional(),
  end_time: z.string().max(100).optional(),
  buckets: z.coerce.number().int().min(1).max(200).default(24),
});

const SeriesOut = z.object({
  start_time: z.string(),
  end_time: z.string(),
  bucket_seconds: z.number(),
  points: z.array(
    z.object({
      start_time: z.string(),
      traces: z.number(),
      errors: z.number(),
      latency_p50_ms: z.number().nullable(),
      latency_p99_ms: z.number().nullable(),
      total_tokens: z.number(),
    }),
  ),
});

function timeOf(text: string | undefined, field: string, fallback: number): number {
  if (text === undefined) return fallback;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new BadRequestError(`${field} is not an ISO 8601 time.`);
  return ms;
}

/** `GET /v2/tracing-projects/{id}/series`: the dashboard's latency and token charts over a window. */
export function traceSeriesRoutes(tracing: TracingService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/v2/tracing-projects/:project_id/series",
      {
        schema: {
          tags: ["tracing projects"],
          summary: "A project's traces per time bucket: counts, errors, latency p50/p99, model tokens",
          params: ProjectParams,
          querystring: SeriesQuery,
          response: { 200: SeriesOut, ...COMMON_ERRORS },
        },
      },
      async (request) => {
        const q = request.query;
        const end = timeOf(q.end_time, "end_time", Date.now());
        const start = timeOf(q.start_time, "start_time", end - 24 * HOUR_MS);
        if (start >= end) throw new BadRequestError("start_time must be before end_time.");
        if (end - start > MAX_WINDOW_MS) throw new BadRequestError("The window is longer than 90 days.");
        const series = await tracing.series(request.tenantId, request.params.project_id, {
          startAfterMs: start,
          startBeforeMs: end,
          buckets: q.buckets,
        });
        return {
          start_time: new Date(start).toISOString(),
          end_time: new Date(end).toISOString(),
          bucket_seconds: series.bucket_ms / 1000,
          points: series.points.map(({ start_ms, ...point }) => ({
            start_time: new Date(start_ms).toISOString(),
            ...point,
          })),
        };
      },
    );
  };
}
