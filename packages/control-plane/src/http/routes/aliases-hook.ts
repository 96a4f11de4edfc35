import type { FastifyRequest } from "fastify";
import { normalizeAliases } from "../../schemas/aliases.js";

/** preValidation hook: renames the real service's field names to the canonical ones before the schema runs. */
export async function canonicalBody(request: FastifyRequest): Promise<void> {
  request.body = normalizeAliases(request.body);
}
