import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { DeploymentParams, RevisionParams } from "../../schemas/query.js";
import { COMMON_ERRORS, LogEntryOut } from "../../schemas/responses.js";
import type { LogRequest, LogService } from "../../services/logs.js";

const tags = ["logs"];
const Cursor = z.string().regex(/^\d{1,15}$/, "must be a cursor returned by this API");
const Level = z.enum(["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]);
/** ISO date-time or epoch milliseconds → epoch ms. */
const Time = z.union([
  z.iso.datetime({ offset: true }).transform((t) => Date.parse(t)),
  z.coerce.number().int().min(0),
]);

/** A page of log lines; `next_offset` continues after the last one. */
const LogPageOut = z.object({ logs: z.array(LogEntryOut), next_offset: z.string().nullable() });

const V2Query = z.object({
  type: z.enum(["build", "deploy"]),
  start_time: Time.optional(),
  end_time: Time.optional(),
  order: z.enum(["asc", "desc"]).default("asc"),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: Cursor.optional(),
  query: z.string().max(1000).optional(),
  level: Level.optional(),
  run_id: z.string().max(100).optional(),
});

const DeploymentLogsQuery = z.object({
  deployment_id: z.uuid(),
  revision_id: z.uuid().optional(),
  log_type: z.enum(["BUILD", "DEPLOY"]).default("DEPLOY"),
  start_time: Time.optional(),
  end_time: Time.optional(),
  sort_order: z.enum(["asc", "desc"]).default("asc"),
  page_size: z.coerce.number().int().min(1).max(100).default(20),
  cursor: Cursor.optional(),
  query: z.string().max(1000).optional(),
  level: Level.optional(),
  run_id: z.string().max(100).optional(),
});

/** The v1 log body the CLIs POST (`langgraph deploy --verbose`, `deploy logs`). */
const V1Body = z
  .object({
    limit: z.number().int().min(1).max(1000).default(50),
    order: z.enum(["asc", "desc"]).default("asc"),
    offset: Cursor.nullish(),
    level: Level.nullish(),
    query: z.string().max(1000).nullish(),
    start_time: Time.nullish(),
    end_time: Time.nullish(),
  })
  .default({ limit: 50, order: "asc" });

const v1 = (body: z.infer<typeof V1Body>): Omit<LogRequest, "deploymentId" | "type"> => ({
  order: body.order,
  limit: body.limit,
  cursor: body.offset ?? undefined,
  level: body.level ?? undefined,
  query: body.query ?? undefined,
  startTime: body.start_time ?? undefined,
  endTime: body.end_time ?? undefined,
});

/** Revision build/deploy logs: the v2 endpoints and the v1 ones the official CLIs read. */
export function logRoutes(logs: LogService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/v2/deployments/:deployment_id/revisions/:revision_id/logs",
      {
        schema: {
          tags,
          summary: "Build or deploy log lines of a revision",
          params: RevisionParams,
          querystring: V2Query,
          response: { 200: LogPageOut, ...COMMON_ERRORS },
        },
      },
      async (request) => {
        const q = request.query;
        const page = await logs.page(request.tenantId, {
          deploymentId: request.params.deployment_id,
          revisionId: request.params.revision_id,
          type: q.type,
          order: q.order,
          limit: q.limit,
          cursor: q.offset,
          level: q.level,
          query: q.query,
          startTime: q.start_time,
          endTime: q.end_time,
        });
        return { logs: page.entries, next_offset: page.next };
      },
    );
    app.get(
      "/v2/deployment-logs",
      {
        schema: {
          tags,
          summary: "Log lines of a deployment (the real service's paged form)",
          querystring: DeploymentLogsQuery,
          response: {
            200: z.object({ items: z.array(LogEntryOut), next_cursor: z.string().nullable() }),
            ...COMMON_ERRORS,
          },
        },
      },
      async (request) => {
        const q = request.query;
        const page = await logs.page(request.tenantId, {
          deploymentId: q.deployment_id,
          revisionId: q.revision_id,
          type: q.log_type === "BUILD" ? "build" : "deploy",
          order: q.sort_order,
          limit: q.page_size,
          cursor: q.cursor,
          level: q.level,
          query: q.query,
          startTime: q.start_time,
          endTime: q.end_time,
        });
        // Pages of a finished listing: the cursor ends (null) with the last page.
        return { items: page.entries, next_cursor: page.full ? page.next : null };
      },
    );
    // The v1 endpoints the CLIs POST to: same body, different scope and log type.
    const v1Routes = [
      {
        path: "/v1/projects/:deployment_id/revisions/:revision_id/build_logs",
        type: "build",
        params: RevisionParams,
        summary: "Build log of a revision (v1, what the official CLIs read)",
      },
      {
        path: "/v1/projects/:deployment_id/revisions/:revision_id/deploy_logs",
        type: "deploy",
        params: RevisionParams,
        summary: "Deploy log of a revision (v1)",
      },
      {
        path: "/v1/projects/:deployment_id/deploy_logs",
        type: "deploy",
        params: DeploymentParams,
        summary: "Deploy log of a deployment (v1)",
      },
    ] as const;
    for (const route of v1Routes) {
      app.post(
        route.path,
        {
          schema: {
            tags,
            summary: route.summary,
            params: route.params,
            body: V1Body.nullish(),
            response: { 200: LogPageOut, ...COMMON_ERRORS },
          },
        },
        async (request) => {
          const params = request.params as { deployment_id: string; revision_id?: string };
          const page = await logs.page(request.tenantId, {
            deploymentId: params.deployment_id,
            revisionId: params.revision_id,
            type: route.type,
            ...v1(V1Body.parse(request.body ?? {})),
          });
          return { logs: page.entries, next_offset: page.next };
        },
      );
    }
  };
}
