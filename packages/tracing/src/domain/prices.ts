import type { ModelPrice } from "./sdk-types.js";

/**
 * Prices shipped with Berth: list prices (USD per 1M tokens, prompt / completion) of common models
 * as published by their vendors when this table was written; a workspace overrides any of them
 * (its own entries are matched first, see `priceFor`). Patterns match the model name LangChain
 * reports (`ls_model_name`), dated snapshots included.
 */
const SHIPPED: Array<[name: string, pattern: string, prompt: number, completion: number, provider: string]> =
  [
    ["gpt-4o-mini", "^gpt-4o-mini(-\\d{4}-\\d{2}-\\d{2})?$", 0.15, 0.6, "openai"],
    ["gpt-4o", "^gpt-4o(-\\d{4}-\\d{2}-\\d{2})?$", 2.5, 10, "openai"],
    ["gpt-4.1-nano", "^gpt-4\\.1-nano(-\\d{4}-\\d{2}-\\d{2})?$", 0.1, 0.4, "openai"],
    ["gpt-4.1-mini", "^gpt-4\\.1-mini(-\\d{4}-\\d{2}-\\d{2})?$", 0.4, 1.6, "openai"],
    ["gpt-4.1", "^gpt-4\\.1(-\\d{4}-\\d{2}-\\d{2})?$", 2, 8, "openai"],
    ["o4-mini", "^o4-mini(-\\d{4}-\\d{2}-\\d{2})?$", 1.1, 4.4, "openai"],
    ["o3", "^o3(-\\d{4}-\\d{2}-\\d{2})?$", 2, 8, "openai"],
    ["o1", "^o1(-\\d{4}-\\d{2}-\\d{2})?$", 15, 60, "openai"],
    ["gpt-4-turbo", "^gpt-4-turbo(-\\d{4}-\\d{2}-\\d{2})?$", 10, 30, "openai"],
    ["gpt-3.5-turbo", "^gpt-3\\.5-turbo(-\\d{4})?$", 0.5, 1.5, "openai"],
    ["claude-opus-4", "^claude-(opus-4|3-opus)", 15, 75, "anthropic"],
    ["claude-sonnet-4", "^claude-(sonnet-4|3-7-sonnet|3-5-sonnet)", 3, 15, "anthropic"],
    ["claude-3-5-haiku", "^claude-3-5-haiku", 0.8, 4, "anthropic"],
    ["claude-3-haiku", "^claude-3-haiku", 0.25, 1.25, "anthropic"],
    ["gemini-2.5-pro", "^gemini-2\\.5-pro", 1.25, 10, "google"],
    ["gemini-2.5-flash", "^gemini-2\\.5-flash", 0.3, 2.5, "google"],
    ["gemini-2.0-flash", "^gemini-2\\.0-flash", 0.1, 0.4, "google"],
    ["gemini-1.5-pro", "^gemini-1\\.5-pro", 1.25, 5, "google"],
    ["gemini-1.5-flash", "^gemini-1\\.5-flash", 0.075, 0.3, "google"],
  ];

export const SHIPPED_PRICES: readonly ModelPrice[] = SHIPPED.map(
  ([name, pattern, prompt, completion, provider]) => ({
    id: `shipped:${name}`,
    tenant_id: null,
    name,
    match_pattern: pattern,
    prompt_cost: prompt / 1_000_000,
    completion_cost: completion / 1_000_000,
    provider,
    created_at: "2026-01-01T00:00:00.000Z",
  }),
);

/** Whether a pattern is a regular expression Berth will match with (checked when it is saved). */
export function validPattern(pattern: string): boolean {
  if (pattern.length === 0 || pattern.length > 500) return false;
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/** Prices in match order: the workspace's own (newest first), then the shipped ones. */
export class PriceTable {
  readonly #entries: Array<{ price: ModelPrice; regex: RegExp }>;

  constructor(workspace: readonly ModelPrice[]) {
    this.#entries = [...workspace, ...SHIPPED_PRICES].flatMap((price) =>
      validPattern(price.match_pattern) ? [{ price, regex: new RegExp(price.match_pattern) }] : [],
    );
  }

  /** The first price whose pattern matches the model name. */
  priceFor(model: string | null): ModelPrice | undefined {
    if (!model) return undefined;
    return this.#entries.find((entry) => entry.regex.test(model))?.price;
  }
}

/** Prompt, completion and total cost of a token count under a price. */
export function costOf(
  price: ModelPrice,
  tokens: { prompt: number; completion: number },
): { prompt: number; completion: number; total: number } {
  const prompt = tokens.prompt * price.prompt_cost;
  const completion = tokens.completion * price.completion_cost;
  return { prompt, completion, total: prompt + completion };
}
