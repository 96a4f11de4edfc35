import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { NotFoundError } from "../../errors.js";
import {
  BulkDeleteQuery,
  DeploymentDeleteQuery,
  DeploymentListQuery,
  DeploymentParams,
} from "../../schemas/query.js";
import { DeploymentCreateRequest, DeploymentPatchRequest } from "../../schemas/requests.js";
import { COMMON_ERRORS, DeploymentOut, ErrorOut, NoContent, pageOf } from "../../schemas/responses.js";
import type { DeploymentService } from "../../services/deployments.js";
import { deploymentToWire } from "../wire.js";
import { canonicalBody, decorateVocabulary } from "./aliases-hook.js";

const tags = ["deployments"];
const BulkDeleteOut = z.object({ deleted: z.array(z.string()), not_found: z.array(z.string()) });

/** `/v2/deployments` routes. */
export function deploymentRoutes(deployments: DeploymentService): FastifyPluginAsyncZod {
  return async (app) => {
    decorateVocabulary(app);
    app.post(
      "/v2/deployments",
      {
        schema: {
          tags,
          summary: "Create a deployment (and its first revision)",
          body: DeploymentCreateRequest,
          response: { 201: DeploymentOut, 400: ErrorOut, 409: ErrorOut, ...COMMON_ERRORS },
        },
        preValidation: canonicalBody,
      },
      async (request, reply) => {
        const created = await deployments.create(request.tenantId, request.body, request.vocabulary);
        return reply.code(201).send(deploymentToWire(created));
      },
    );

    app.get(
      "/v2/deployments",
      {
        schema: {
          tags,
          summary: "List deployments",
          querystring: DeploymentListQuery,
          response: { 200: pageOf(DeploymentOut), ...COMMON_ERRORS },
        },
      },
      async (request) => {
        const q = request.query;
        const page = await deployments.list(request.tenantId, {
          nameContains: q.name_contains,
          name: q.name,
          statuses: q.status,
          ids: q.deployment_ids,
          deploymentType: q.deployment_type,
          imageVersion: q.image_version,
          remoteReconciled: q.remote_reconciled,
          tagValueIds: q.tag_value_ids,
          limit: q.limit,
          offset: q.offset,
        });
        return { resources: page.resources.map(deploymentToWire), offset: page.offset };
      },
    );

    app.delete(
      "/v2/deployments",
      {
        schema: {
          tags,
          summary: "Delete several deployments",
          querystring: BulkDeleteQuery,
          response: {
            200: BulkDeleteOut.describe("All deleted"),
            207: BulkDeleteOut.describe("Some ids were not found"),
            ...COMMON_ERRORS,
          },
        },
      },
      async (request, reply) => {
        const q = request.query;
        const result = await deployments.bulkDelete(
          request.tenantId,
          q.deployment_ids,
          q.delete_tracing_project,
        );
        if (result.deleted.length === 0) throw new NotFoundError("None of the deployment IDs were found.");
        return reply.code(result.not_found.length === 0 ? 200 : 207).send(result);
      },
    );

    app.get(
      "/v2/deployments/:deployment_id",
      {
        schema: {
          tags,
          summary: "Get a deployment",
          params: DeploymentParams,
          response: { 200: DeploymentOut, ...COMMON_ERRORS },
        },
      },
      async (request) =>
        deploymentToWire(await deployments.get(request.tenantId, request.params.deployment_id)),
    );

    app.patch(
      "/v2/deployments/:deployment_id",
      {
        schema: {
          tags,
          summary: "Update a deployment (revision inputs make a new revision)",
          params: DeploymentParams,
          body: DeploymentPatchRequest,
          response: { 200: DeploymentOut, 400: ErrorOut, 409: ErrorOut, ...COMMON_ERRORS },
        },
        preValidation: canonicalBody,
      },
      async (request) =>
        deploymentToWire(
          await deployments.patch(request.tenantId, request.params.deployment_id, request.body),
        ),
    );

    app.delete(
      "/v2/deployments/:deployment_id",
      {
        schema: {
          tags,
          summary: "Delete a deployment (stops its agent server, removes its data)",
          params: DeploymentParams,
          querystring: DeploymentDeleteQuery,
          response: { 204: NoContent, 409: ErrorOut, ...COMMON_ERRORS },
        },
      },
      async (request, reply) => {
        await deployments.delete(request.tenantId, request.params.deployment_id, {
          deleteTracingProject: request.query.delete_tracing_project,
          force: request.query.force,
        });
        return reply.code(204).send(null);
      },
    );
  };
}
