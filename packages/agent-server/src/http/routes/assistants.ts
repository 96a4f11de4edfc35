import {
  AssistantCount,
  AssistantCreate,
  AssistantGraphQuery,
  AssistantLatest,
  AssistantPatch,
  AssistantSearch,
  AssistantVersionsQuery,
} from "@berth-platform/schemas";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { selectFields } from "../../domain/select-fields.js";
import type { AssistantService } from "../../services/assistants.js";
import type { ThreadService } from "../../services/threads.js";

const Params = z.object({ assistant_id: z.string().min(1) });
const Flag = z
  .union([z.boolean(), z.enum(["0", "1", "true", "false"])])
  .optional()
  .transform((v) => v === true || v === "1" || v === "true");

/** `/assistants` routes. */
export function assistantRoutes(assistants: AssistantService, threads: ThreadService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post("/assistants", { schema: { body: AssistantCreate } }, (request) =>
      assistants.create(request.body),
    );
    app.post(
      "/assistants/search",
      { schema: { body: AssistantSearch.nullish() } },
      async (request, reply) => {
        const filter = AssistantSearch.parse(request.body ?? {});
        const [found, total] = await Promise.all([assistants.search(filter), assistants.count(filter)]);
        reply.header("x-pagination-total", String(total));
        if (filter.offset + found.length < total)
          reply.header("x-pagination-next", String(filter.offset + found.length));
        return selectFields(found, filter.select);
      },
    );
    app.post("/assistants/count", { schema: { body: AssistantCount.nullish() } }, (request) =>
      assistants.count(AssistantCount.parse(request.body ?? {})),
    );
    app.get("/assistants/:assistant_id", { schema: { params: Params } }, (request) =>
      assistants.get(request.params.assistant_id),
    );
    app.patch(
      "/assistants/:assistant_id",
      { schema: { params: Params, body: AssistantPatch.nullish() } },
      (request) => assistants.patch(request.params.assistant_id, request.body ?? {}),
    );
    app.delete(
      "/assistants/:assistant_id",
      { schema: { params: Params, querystring: z.object({ delete_threads: Flag }) } },
      async (request, reply) => {
        const id = await assistants.delete(request.params.assistant_id);
        // The SDK's `assistants.delete(id, { deleteThreads: true })`: the threads its runs used go too.
        if (request.query.delete_threads) await threads.deleteOfAssistant(id);
        return reply.code(204).send();
      },
    );
    app.post(
      "/assistants/:assistant_id/versions",
      { schema: { params: Params, body: AssistantVersionsQuery.nullish() } },
      (request) =>
        assistants.versions(request.params.assistant_id, AssistantVersionsQuery.parse(request.body ?? {})),
    );
    app.post(
      "/assistants/:assistant_id/latest",
      { schema: { params: Params, body: AssistantLatest } },
      (request) => assistants.setLatest(request.params.assistant_id, request.body.version),
    );
    app.get(
      "/assistants/:assistant_id/graph",
      { schema: { params: Params, querystring: AssistantGraphQuery } },
      (request) => {
        const x = request.query.xray;
        return assistants.drawable(
          request.params.assistant_id,
          x === "true" ? true : x === "false" || x === undefined ? false : x,
        );
      },
    );
    app.get("/assistants/:assistant_id/schemas", { schema: { params: Params } }, (request) =>
      assistants.schemas(request.params.assistant_id),
    );
    for (const path of [
      "/assistants/:assistant_id/subgraphs",
      "/assistants/:assistant_id/subgraphs/:namespace",
    ]) {
      app.get(
        path,
        {
          schema: {
            params: Params.extend({ namespace: z.string().optional() }),
            querystring: z.object({ recurse: Flag }),
          },
        },
        (request) =>
          assistants.subgraphs(request.params.assistant_id, request.params.namespace, request.query.recurse),
      );
    }
  };
}
