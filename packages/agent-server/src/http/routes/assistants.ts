import { AssistantSearch } from "@berth/schemas";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { AssistantService } from "../../services/assistants.js";

/** `/assistants` routes. */
export function assistantRoutes(assistants: AssistantService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      "/assistants/:assistant_id",
      { schema: { params: z.object({ assistant_id: z.string() }) } },
      (request) => assistants.get(request.params.assistant_id),
    );
    app.post(
      "/assistants/search",
      { schema: { body: AssistantSearch.nullish() } },
      async (request, reply) => {
        const filter = AssistantSearch.parse(request.body ?? {});
        const found = await assistants.search(filter);
        reply.header("x-pagination-total", String(found.length + filter.offset));
        return found;
      },
    );
  };
}
