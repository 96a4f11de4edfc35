import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { DeploymentParams } from "../../schemas/query.js";
import { COMMON_ERRORS } from "../../schemas/responses.js";
import type { DeploymentService } from "../../services/deployments.js";
import type { StudioLinks } from "../../services/studio-links.js";

const StudioLinkOut = z.object({
  base_path: z.string().describe("The agent API for Studio, relative to the control plane: /studio/<token>"),
  base_url: z
    .string()
    .describe("base_path on the control plane's own URL (BERTH_PUBLIC_URL or where it listens)"),
  studio_url: z.string().describe("LangGraph Studio opened on base_url"),
  expires_at: z.string(),
});

/**
 * `POST /v2/deployments/{id}/studio-link`: a link that opens LangGraph Studio on a deployment.
 * Studio calls the agent API from the browser and cannot send a Berth API key, so the base URL it
 * is given carries a signed, expiring grant for this deployment alone (services/studio-links.ts).
 */
export function studioLinkRoutes(
  deployments: DeploymentService,
  links: StudioLinks,
  options: { publicBase: () => string; studioUrl: string },
): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      "/v2/deployments/:deployment_id/studio-link",
      {
        schema: {
          tags: ["deployments"],
          summary: "A LangGraph Studio link for the deployment (its base URL carries a 12-hour grant)",
          params: DeploymentParams,
          response: { 200: StudioLinkOut, ...COMMON_ERRORS },
        },
      },
      async (request) => {
        // A foreign or deleted deployment is a 404 here, before anything is signed.
        const deployment = await deployments.get(request.tenantId, request.params.deployment_id);
        const { token, expiresAt } = links.mint(request.tenantId, deployment.id);
        const basePath = `/studio/${token}`;
        const baseUrl = `${options.publicBase().replace(/\/+$/, "")}${basePath}`;
        return {
          base_path: basePath,
          base_url: baseUrl,
          studio_url: studioLinkFor(options.studioUrl, baseUrl),
          expires_at: expiresAt.toISOString(),
        };
      },
    );
  };
}

/** `https://smith.langchain.com/studio/?baseUrl=<agent URL>`, the form `langgraph dev` prints. */
export function studioLinkFor(studioUrl: string, baseUrl: string): string {
  return `${studioUrl.replace(/\/+$/, "")}/studio/?baseUrl=${encodeURIComponent(baseUrl)}`;
}
