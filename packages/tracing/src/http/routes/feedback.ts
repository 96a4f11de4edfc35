import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Feedback } from "../../domain/sdk-types.js";
import type { FeedbackInput, FeedbackService } from "../../services/feedback.js";
import { requireApiCaller } from "../plugin.js";
import { CsvList, Uuid } from "../query.js";

const FeedbackQuery = z.object({
  run: CsvList.pipe(z.array(Uuid).max(100)).optional(),
  key: CsvList.pipe(z.array(z.string().max(200)).max(100)).optional(),
  session: CsvList.pipe(z.array(Uuid).max(100)).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(100),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
});

const Body = z.record(z.string(), z.unknown());

/** Feedback in LangSmith's shape. */
export function feedbackToLangSmith(f: Feedback) {
  return {
    id: f.id,
    run_id: f.run_id,
    trace_id: f.trace_id,
    session_id: f.session_id,
    key: f.key,
    score: f.score,
    value: f.value,
    comment: f.comment,
    correction: f.correction,
    feedback_source: f.feedback_source,
    created_at: f.created_at,
    modified_at: f.modified_at,
  };
}

/** LangSmith's `/feedback`: create, read, list (by run, key, project), update, delete. */
export function feedbackRoutes(feedback: FeedbackService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post("/feedback", { schema: { hide: true, body: Body } }, async (request) =>
      feedbackToLangSmith(await feedback.create(requireApiCaller(request), request.body as FeedbackInput)),
    );

    app.get("/feedback", { schema: { hide: true, querystring: FeedbackQuery } }, async (request) => {
      const q = request.query;
      const list = await feedback.list(requireApiCaller(request), {
        ...(q.run ? { runIds: q.run } : {}),
        ...(q.key ? { keys: q.key } : {}),
        ...(q.session ? { sessionIds: q.session } : {}),
        limit: q.limit,
        offset: q.offset,
      });
      return list.map(feedbackToLangSmith);
    });

    const Params = z.object({ feedback_id: Uuid });
    app.get("/feedback/:feedback_id", { schema: { hide: true, params: Params } }, async (request) =>
      feedbackToLangSmith(await feedback.get(requireApiCaller(request), request.params.feedback_id)),
    );

    app.patch(
      "/feedback/:feedback_id",
      { schema: { hide: true, params: Params, body: Body } },
      async (request) =>
        feedbackToLangSmith(
          await feedback.update(
            requireApiCaller(request),
            request.params.feedback_id,
            request.body as FeedbackInput,
          ),
        ),
    );

    app.delete("/feedback/:feedback_id", { schema: { hide: true, params: Params } }, async (request) => {
      await feedback.remove(requireApiCaller(request), request.params.feedback_id);
      return {};
    });
  };
}
