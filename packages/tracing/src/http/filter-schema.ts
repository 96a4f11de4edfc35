import { z } from "zod";
import { MAX_FILTER_LENGTH, parseRunFilter, type RunFilter, RunFilterError } from "../domain/run-filter.js";

/**
 * A filter expression, parsed while the body is validated: what does not parse or is not
 * supported is a 422 at `["body", "<field>"]` saying why (docs in domain/run-filter.ts).
 */
export const FilterExpression = z
  .string()
  .max(MAX_FILTER_LENGTH)
  .transform((source, ctx): RunFilter | undefined => {
    if (source.trim() === "") return undefined;
    try {
      return parseRunFilter(source);
    } catch (error) {
      if (!(error instanceof RunFilterError)) throw error;
      ctx.addIssue({ code: "custom", message: error.message });
      return z.NEVER;
    }
  });
