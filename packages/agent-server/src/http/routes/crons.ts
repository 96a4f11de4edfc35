import {
  CronCount,
  CronCreate,
  CronParams,
  CronPatch,
  CronSearch,
  ThreadCronCreate,
  ThreadParams,
} from "@berth-platform/schemas";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { CronService } from "../../services/crons.js";

/** `/runs/crons` and `/threads/{thread_id}/runs/crons` routes. */
export function cronRoutes(crons: CronService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post("/runs/crons", { schema: { body: CronCreate } }, (request) =>
      crons.createStateless(request.body),
    );
    app.post(
      "/threads/:thread_id/runs/crons",
      { schema: { params: ThreadParams, body: ThreadCronCreate } },
      (request) => crons.createForThread(request.params.thread_id, request.body),
    );
    app.post("/runs/crons/search", { schema: { body: CronSearch.nullish() } }, (request) =>
      crons.search(CronSearch.parse(request.body ?? {})),
    );
    app.post("/runs/crons/count", { schema: { body: CronCount.nullish() } }, (request) =>
      crons.count(CronCount.parse(request.body ?? {})),
    );
    app.get("/runs/crons/:cron_id", { schema: { params: CronParams } }, (request) =>
      crons.get(request.params.cron_id),
    );
    app.patch("/runs/crons/:cron_id", { schema: { params: CronParams, body: CronPatch } }, (request) =>
      crons.patch(request.params.cron_id, request.body),
    );
    app.delete("/runs/crons/:cron_id", { schema: { params: CronParams } }, async (request, reply) => {
      await crons.delete(request.params.cron_id);
      return reply.code(204).send();
    });
  };
}
