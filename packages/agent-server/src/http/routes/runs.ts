import {
  RunCancelMany,
  RunCancelQuery,
  RunCreateStateful,
  RunListQuery,
  RunParams,
  ThreadParams,
} from "@berth-platform/schemas";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { selectFields } from "../../domain/select-fields.js";
import { toRunWire } from "../../services/run-wire.js";
import type { RunService } from "../../services/runs.js";
import { callerOf } from "../auth.js";

/** `/threads/{thread_id}/runs` routes. */
export function runRoutes(runs: RunService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      "/threads/:thread_id/runs",
      { schema: { params: ThreadParams, body: RunCreateStateful } },
      async (request, reply) => {
        const run = await runs.createForThread(request.params.thread_id, request.body, callerOf(request));
        reply.header("content-location", `/threads/${run.thread_id}/runs/${run.run_id}`);
        return toRunWire(run);
      },
    );
    app.get(
      "/threads/:thread_id/runs",
      { schema: { params: ThreadParams, querystring: RunListQuery } },
      async (request) =>
        selectFields(
          (await runs.list(request.params.thread_id, request.query)).map(toRunWire),
          request.query.select,
        ),
    );
    app.get("/threads/:thread_id/runs/:run_id", { schema: { params: RunParams } }, async (request) =>
      toRunWire(await runs.get(request.params.thread_id, request.params.run_id)),
    );
    app.get(
      "/threads/:thread_id/runs/:run_id/join",
      { schema: { params: RunParams } },
      async (request, reply) => {
        const gone = new AbortController();
        const onClose = () => {
          if (!reply.raw.writableFinished) gone.abort();
        };
        reply.raw.on("close", onClose);
        try {
          const values = await runs.join(request.params.thread_id, request.params.run_id, gone.signal);
          return reply.type("application/json").send(values);
        } finally {
          reply.raw.off("close", onClose);
        }
      },
    );
    app.post(
      "/threads/:thread_id/runs/:run_id/cancel",
      { schema: { params: RunParams, querystring: RunCancelQuery } },
      async (request, reply) => {
        const { thread_id, run_id } = request.params;
        await runs.get(thread_id, run_id);
        const gone = new AbortController();
        reply.raw.on("close", () => gone.abort());
        await runs.cancel(thread_id, [run_id], { ...request.query, signal: gone.signal });
        return reply.type("application/json").send("null");
      },
    );
    app.post(
      "/runs/cancel",
      {
        schema: {
          body: RunCancelMany,
          querystring: z.object({ action: z.enum(["interrupt", "rollback"]).default("interrupt") }),
        },
      },
      async (request, reply) => {
        await runs.cancel(request.body.thread_id, request.body.run_ids, {
          action: request.query.action,
          wait: false,
          signal: new AbortController().signal,
        });
        return reply.code(204).send();
      },
    );
    app.delete(
      "/threads/:thread_id/runs/:run_id",
      { schema: { params: RunParams } },
      async (request, reply) => {
        await runs.delete(request.params.thread_id, request.params.run_id);
        return reply.code(204).send();
      },
    );
  };
}
