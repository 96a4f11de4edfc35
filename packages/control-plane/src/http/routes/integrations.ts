import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { IntegrationService } from "../../services/integrations.js";

const tags = ["integrations"];
/** The real service's host path segment and the spec's neutral one. */
const HOSTS = ["github", "repo_host"];

/** `/v1/integrations/<host>/install` and `/v1/integrations/<host>/{id}/repos` (bare arrays, as the real service). */
export function integrationRoutes(integrations: IntegrationService): FastifyPluginAsyncZod {
  return async (app) => {
    for (const host of HOSTS) {
      app.get(`/v1/integrations/${host}/install`, { schema: { tags } }, async () => integrations.list());
      app.get(
        `/v1/integrations/${host}/:integration_id/repos`,
        { schema: { tags, params: z.object({ integration_id: z.uuid() }) } },
        async (request) => integrations.repositories(request.params.integration_id),
      );
    }
  };
}
