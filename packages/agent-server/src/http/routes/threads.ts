import {
  ThreadCheckpointParams,
  ThreadCount,
  ThreadCreate,
  ThreadHistoryBody,
  ThreadHistoryQuery,
  ThreadParams,
  ThreadPatch,
  ThreadSearch,
  ThreadStateAtCheckpoint,
  ThreadStateQuery,
  ThreadStateUpdate,
} from "@berth-platform/schemas";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { selectFields } from "../../domain/select-fields.js";
import type { ThreadStateService } from "../../services/thread-state.js";
import type { ThreadService } from "../../services/threads.js";

/** `/threads` routes: the threads themselves, their state and history. */
export function threadRoutes(threads: ThreadService, state: ThreadStateService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post("/threads", { schema: { body: ThreadCreate.nullish() } }, (request) => {
      const body = ThreadCreate.parse(request.body ?? {});
      const supersteps = body.supersteps;
      return supersteps?.length
        ? threads.create(body, (thread) => state.applySupersteps(thread.thread_id, supersteps))
        : threads.create(body);
    });
    app.post("/threads/search", { schema: { body: ThreadSearch.nullish() } }, async (request, reply) => {
      const filter = ThreadSearch.parse(request.body ?? {});
      const [found, total] = await Promise.all([threads.search(filter), threads.count(filter)]);
      reply.header("x-pagination-total", String(total));
      if (filter.offset + found.length < total)
        reply.header("x-pagination-next", String(filter.offset + found.length));
      return selectFields(found, filter.select);
    });
    app.post("/threads/count", { schema: { body: ThreadCount.nullish() } }, (request) =>
      threads.count(ThreadCount.parse(request.body ?? {})),
    );
    app.get("/threads/:thread_id", { schema: { params: ThreadParams } }, (request) =>
      threads.get(request.params.thread_id),
    );
    app.patch("/threads/:thread_id", { schema: { params: ThreadParams, body: ThreadPatch } }, (request) =>
      threads.patch(request.params.thread_id, request.body.metadata ?? {}),
    );
    app.delete("/threads/:thread_id", { schema: { params: ThreadParams } }, async (request, reply) => {
      await threads.delete(request.params.thread_id);
      return reply.code(204).send();
    });
    app.post("/threads/:thread_id/copy", { schema: { params: ThreadParams } }, (request) =>
      threads.copy(request.params.thread_id),
    );
    app.get(
      "/threads/:thread_id/state",
      { schema: { params: ThreadParams, querystring: ThreadStateQuery } },
      (request) => state.get(request.params.thread_id, null, request.query),
    );
    app.post(
      "/threads/:thread_id/state",
      { schema: { params: ThreadParams, body: ThreadStateUpdate } },
      (request) => state.update(request.params.thread_id, request.body),
    );
    app.get(
      "/threads/:thread_id/state/:checkpoint_id",
      { schema: { params: ThreadCheckpointParams, querystring: ThreadStateQuery } },
      (request) =>
        state.get(request.params.thread_id, { checkpoint_id: request.params.checkpoint_id }, request.query),
    );
    app.post(
      "/threads/:thread_id/state/checkpoint",
      { schema: { params: ThreadParams, body: ThreadStateAtCheckpoint } },
      (request) => state.get(request.params.thread_id, request.body.checkpoint, request.body),
    );
    app.get(
      "/threads/:thread_id/history",
      { schema: { params: ThreadParams, querystring: ThreadHistoryQuery } },
      (request) =>
        state.history(request.params.thread_id, {
          limit: request.query.limit,
          before: request.query.before ? { checkpoint_id: request.query.before } : null,
        }),
    );
    app.post(
      "/threads/:thread_id/history",
      { schema: { params: ThreadParams, body: ThreadHistoryBody.nullish() } },
      (request) => {
        const body = ThreadHistoryBody.parse(request.body ?? {});
        return state.history(request.params.thread_id, {
          limit: body.limit,
          before: typeof body.before === "string" ? { checkpoint_id: body.before } : body.before,
          metadata: body.metadata,
          checkpoint: body.checkpoint,
        });
      },
    );
  };
}
