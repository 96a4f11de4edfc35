import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { BadRequestError } from "../../errors.js";
import { DeploymentParams } from "../../schemas/query.js";
import { COMMON_ERRORS, ErrorOut } from "../../schemas/responses.js";
import type { DeploymentService } from "../../services/deployments.js";

/**
 * `POST /v2/deployments/{id}/push-token`: on the real service, registry credentials for
 * `langgraph deploy` to push an image of an internal_container (`internal_docker`) deployment.
 * Berth's runtimes build from source and have no registry of their own, so the answer is a 400
 * that says so — with the real service's wording for other sources, which the official CLI
 * recognises ("deployment was not created by langgraph deploy").
 */
export function pushTokenRoutes(deployments: DeploymentService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      "/v2/deployments/:deployment_id/push-token",
      {
        schema: {
          tags: ["deployments"],
          summary: "Registry push credentials (none here: always 400, saying why)",
          params: DeploymentParams,
          response: { 400: ErrorOut, ...COMMON_ERRORS },
        },
      },
      async (request) => {
        const deployment = await deployments.get(request.tenantId, request.params.deployment_id);
        if (deployment.source !== "internal_container") {
          throw new BadRequestError(
            "Push tokens are only available for 'internal_docker' source deployments (internal_container).",
          );
        }
        throw new BadRequestError(
          "This control plane has no container registry to push to: deploy the project as source " +
            "(`langgraphjs deploy --remote` or `berth deploy`), or use an external_container deployment " +
            "with an image from your own registry.",
        );
      },
    );
  };
}
