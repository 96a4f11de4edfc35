import { AIMessage, mergeUsageMetadata, type UsageMetadata } from "@langchain/core/messages";

/** What the tracer reads of a runnable's serialised form: its class path, for the run's name. */
export type Serialized = { id?: string[] };

/** A chain's inputs or outputs as a dict, as the SDK's tracer records them. */
export function coerceToDict(value: unknown, key: string): unknown {
  return value && !Array.isArray(value) && typeof value === "object" ? value : { [key]: value };
}

/** A run's default name: the last segment of its class path. */
export function lastId(serialized: Serialized | undefined): string {
  return serialized?.id?.at(-1) ?? "Unnamed";
}

/** Token usage summed over a chat model's generations, as the SDK's tracer adds it to metadata. */
export function usageOf(output: unknown): UsageMetadata | undefined {
  const generations = (output as { generations?: unknown[][] } | undefined)?.generations;
  if (!Array.isArray(generations)) return undefined;
  let usage: UsageMetadata | undefined;
  for (const batch of generations) {
    if (!Array.isArray(batch)) continue;
    for (const generation of batch) {
      const message = (generation as { message?: unknown } | undefined)?.message;
      if (AIMessage.isInstance(message) && message.usage_metadata !== undefined)
        usage = mergeUsageMetadata(usage, message.usage_metadata);
    }
  }
  return usage;
}
