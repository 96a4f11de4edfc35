import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { TemplateCatalog } from "../../runtime/local/templates.js";

const tags = ["templates"];

const TemplateOut = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  graphs: z.array(z.string()),
});

/** `GET /v2/templates`: the projects an `internal_template` deployment can run (`source_config.template_id`). */
export function templateRoutes(templates: TemplateCatalog): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/v2/templates",
      {
        schema: {
          tags,
          summary: "Bundled templates an internal_template deployment can run",
          response: { 200: z.object({ resources: z.array(TemplateOut) }) },
        },
      },
      async () => ({
        resources: templates
          .list()
          .map((t) => ({ id: t.id, name: t.name, description: t.description, graphs: t.graphs })),
      }),
    );
  };
}
