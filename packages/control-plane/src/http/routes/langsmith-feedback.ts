import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Feedback } from "../../domain/feedback.js";
import { CsvList } from "../../schemas/query.js";
import type { FeedbackService } from "../../services/feedback.js";

const Uuid = z.uuid().transform((id) => id.toLowerCase());

/**
 * `POST /feedback` body, as the langsmith SDK's createFeedback sends it. Feedback on a project
 * (no run) is not kept: `run_id` is required. Fields Berth does not keep are accepted and dropped.
 */
const FeedbackBody = z.object({
  id: Uuid.optional(),
  run_id: Uuid,
  key: z.string().min(1).max(200),
  // The SDK sends booleans as they are; LangSmith stores them as 1/0.
  score: z
    .union([z.number(), z.boolean()])
    .nullish()
    .transform((s) => (typeof s === "boolean" ? Number(s) : s)),
  value: z.unknown().optional(),
  comment: z.string().max(10_000).nullish(),
  correction: z.unknown().optional(),
  feedback_source: z.record(z.string(), z.unknown()).nullish(),
});

/** `GET /feedback` query: runs and keys (repeated or comma-separated), paging. */
const FeedbackQuery = z.object({
  run: CsvList.pipe(z.array(Uuid).max(100)).optional(),
  key: CsvList.pipe(z.array(z.string().max(200)).max(100)).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(100),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
});

/** Feedback in LangSmith's shape. */
export function feedbackToLangSmith(feedback: Feedback) {
  return {
    id: feedback.id,
    run_id: feedback.run_id,
    trace_id: feedback.trace_id,
    key: feedback.key,
    score: feedback.score,
    value: feedback.value,
    comment: feedback.comment,
    correction: feedback.correction,
    feedback_source: feedback.feedback_source,
    created_at: feedback.created_at,
    modified_at: feedback.created_at,
    session_id: null,
  };
}

/**
 * LangSmith's `/feedback` (create, list by run): the minimum the dashboard shows on runs. Mounted
 * with the workspace API key's auth (an ingest key cannot reach it).
 */
export function feedbackRoutes(feedback: FeedbackService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post("/feedback", { schema: { hide: true, body: FeedbackBody } }, async (request) =>
      feedbackToLangSmith(await feedback.create(request.tenantId, request.body)),
    );

    app.get("/feedback", { schema: { hide: true, querystring: FeedbackQuery } }, async (request) => {
      const q = request.query;
      const list = await feedback.list(request.tenantId, {
        runIds: q.run,
        keys: q.key,
        limit: q.limit,
        offset: q.offset,
      });
      return list.map(feedbackToLangSmith);
    });
  };
}
