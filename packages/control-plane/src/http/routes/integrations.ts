import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { IntegrationService } from "../../services/integrations.js";

const tags = ["integrations"];
const IntegrationOut = z.object({ id: z.string(), installation_id: z.number().int(), name: z.string() });
const RepositoryOut = z.object({
  host_integration_id: z.string(),
  id: z.number().int(),
  name: z.string(),
  owner: z.string(),
  url: z.string(),
  default_branch: z.string(),
});
/** The real service's host path segment and the spec's neutral one. */
const HOSTS = ["github", "repo_host"];

/** `/v1/integrations/<host>/install` and `/v1/integrations/<host>/{id}/repos` (bare arrays, as the real service). */
export function integrationRoutes(integrations: IntegrationService): FastifyPluginAsyncZod {
  return async (app) => {
    for (const host of HOSTS) {
      app.get(
        `/v1/integrations/${host}/install`,
        {
          schema: {
            tags,
            summary: "Git hosts configured for repo_host deployments (BERTH_GIT_HOSTS)",
            response: { 200: z.array(IntegrationOut) },
          },
        },
        async () => integrations.list(),
      );
      app.get(
        `/v1/integrations/${host}/:integration_id/repos`,
        {
          schema: {
            tags,
            summary: "Repositories of a configured git host",
            params: z.object({ integration_id: z.uuid() }),
            response: { 200: z.array(RepositoryOut) },
          },
        },
        async (request) => integrations.repositories(request.params.integration_id),
      );
    }
  };
}
