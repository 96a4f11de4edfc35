import type { FastifyInstance, FastifyRequest } from "fastify";
import { normalizeAliases, type Vocabulary, vocabularyOf } from "../../schemas/aliases.js";

declare module "fastify" {
  interface FastifyRequest {
    /** Whether the body spelled anything with the real service's names (set by `canonicalBody`). */
    vocabulary: Vocabulary;
  }
}

/** Declares `request.vocabulary` on the routes of `app` (once per plugin that uses `canonicalBody`). */
export function decorateVocabulary(app: FastifyInstance): void {
  if (!app.hasRequestDecorator("vocabulary")) app.decorateRequest("vocabulary", "neutral");
}

/**
 * preValidation hook: notes which vocabulary the body speaks, then renames the real service's
 * field names to the canonical ones before the schema runs.
 */
export async function canonicalBody(request: FastifyRequest): Promise<void> {
  request.vocabulary = vocabularyOf(request.body);
  request.body = normalizeAliases(request.body);
}
