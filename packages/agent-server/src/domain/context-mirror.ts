import type { JsonObject } from "@berth-platform/schemas";
import { asObject } from "./json-object.js";

/**
 * LangGraph 0.6's `context` and the older `config.configurable` kept in step, as the official
 * server keeps them for runs and assistants: a request that gives only one gets the other as a
 * copy, so a graph that reads `config.configurable` sees what a newer client sent as `context`,
 * and one that reads its context sees an older client's `configurable`. A request giving both
 * keeps both as given (the official JS server takes that; the Python one refuses it).
 */
export function mirrorContext<T extends { config?: JsonObject | null; context?: JsonObject | null }>(
  body: T,
): T {
  const config = asObject(body.config);
  const configurable = asObject(config.configurable);
  const context = asObject(body.context);
  const hasConfigurable = Object.keys(configurable).length > 0;
  const hasContext = Object.keys(context).length > 0;
  if (hasConfigurable === hasContext) return body;
  if (hasContext) return { ...body, config: { ...config, configurable: { ...context } } };
  return { ...body, context: { ...configurable } };
}
