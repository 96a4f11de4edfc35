import { ThreadCreate, ThreadParams } from "@berth/schemas";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { ThreadService } from "../../services/threads.js";

/** `/threads` routes. */
export function threadRoutes(threads: ThreadService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post("/threads", { schema: { body: ThreadCreate.nullish() } }, (request) =>
      threads.create(ThreadCreate.parse(request.body ?? {})),
    );
    app.get("/threads/:thread_id", { schema: { params: ThreadParams } }, (request) =>
      threads.get(request.params.thread_id),
    );
    app.get("/threads/:thread_id/state", { schema: { params: ThreadParams } }, (request) =>
      threads.getState(request.params.thread_id),
    );
  };
}
