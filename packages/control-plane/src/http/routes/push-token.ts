import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { BadRequestError } from "../../errors.js";
import { DeploymentParams } from "../../schemas/query.js";
import { COMMON_ERRORS, ErrorOut } from "../../schemas/responses.js";
import type { DeploymentService } from "../../services/deployments.js";

/**
 * `POST /v2/deployments/{id}/push-token`: registry credentials for `langgraph deploy` to push an
 * image of an internal_container (`internal_docker`) deployment — those of the registry the
 * operator configured (BERTH_REGISTRY_URL/TOKEN), shared by every workspace. Without one the
 * answer is a 400 that says so; other sources get the real service's wording, which the official
 * CLI recognises ("deployment was not created by langgraph deploy").
 */
export function pushTokenRoutes(
  deployments: DeploymentService,
  registry: { url: string; token: string } | null,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      "/v2/deployments/:deployment_id/push-token",
      {
        schema: {
          tags: ["deployments"],
          summary: "Registry push credentials (none here: always 400, saying why)",
          params: DeploymentParams,
          response: {
            200: z.object({ token: z.string(), registry_url: z.string() }),
            400: ErrorOut,
            ...COMMON_ERRORS,
          },
        },
      },
      async (request) => {
        const deployment = await deployments.get(request.tenantId, request.params.deployment_id);
        if (deployment.source !== "internal_container") {
          throw new BadRequestError(
            "Push tokens are only available for 'internal_docker' source deployments (internal_container).",
          );
        }
        if (registry) return { token: registry.token, registry_url: registry.url };
        throw new BadRequestError(
          "This control plane has no container registry to push to: deploy the project as source " +
            "(`langgraphjs deploy --remote` or `berth deploy`), or use an external_container deployment " +
            "with an image from your own registry (an operator can configure one: BERTH_REGISTRY_URL and BERTH_REGISTRY_TOKEN).",
        );
      },
    );
  };
}
