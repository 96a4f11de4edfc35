import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { NotFoundError } from "../../errors.js";
import { ProjectListQuery, ProjectParams } from "../../schemas/query.js";
import { COMMON_ERRORS, pageOf, TracingProjectOut } from "../../schemas/responses.js";
import type { TracingProjectStore } from "../../storage/types.js";
import { projectToWire } from "../wire.js";

const tags = ["tracing projects"];

/** `/v2/tracing-projects`: the projects created with deployments (read-only here). */
export function projectRoutes(projects: TracingProjectStore): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/v2/tracing-projects",
      {
        schema: {
          tags,
          querystring: ProjectListQuery,
          response: { 200: pageOf(TracingProjectOut), ...COMMON_ERRORS },
        },
      },
      async (request) => {
        const q = request.query;
        const resources = await projects.list(request.tenantId, {
          name: q.name,
          limit: q.limit,
          offset: q.offset,
        });
        return { resources: resources.map(projectToWire), offset: q.offset + resources.length };
      },
    );

    app.get(
      "/v2/tracing-projects/:project_id",
      { schema: { tags, params: ProjectParams, response: { 200: TracingProjectOut, ...COMMON_ERRORS } } },
      async (request) => {
        const project = await projects.get(request.tenantId, request.params.project_id);
        if (!project) throw new NotFoundError(`Tracing project ID ${request.params.project_id} not found.`);
        return projectToWire(project);
      },
    );
  };
}
