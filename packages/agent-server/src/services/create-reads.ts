import type { Assistant } from "@berth-platform/schemas";
import type { CreateReads } from "../storage/types.js";

/** At most this many assistants (a deployment has a few) and thread configs are kept. */
const ASSISTANTS_MAX = 256;
const THREAD_CONFIGS_MAX = 10_000;

/**
 * The rows a run's create is built from (its assistant, its thread's config), kept between creates
 * of this process so a chat's next turn need not read them again: two round trips per run on
 * PostgreSQL. Only used with a store that checks them in the create's own statement
 * (`RunStore.checksCreateReads`): a row another process changed makes the create fail as stale,
 * and the run is built again from fresh reads. Least recently used entries leave first.
 */
export class CreateReadsCache {
  private readonly assistants = new Map<string, Assistant>();
  private readonly threadConfigs = new Map<string, string>();

  /** By the id or graph id the request named. */
  assistant(idOrGraph: string): Assistant | undefined {
    return touch(this.assistants, idOrGraph);
  }

  rememberAssistant(idOrGraph: string, assistant: Assistant): void {
    remember(this.assistants, idOrGraph, assistant, ASSISTANTS_MAX);
  }

  /** The thread's config as stored (JSON text). */
  threadConfig(threadId: string): string | undefined {
    return touch(this.threadConfigs, threadId);
  }

  rememberThreadConfig(threadId: string, configJson: string): void {
    remember(this.threadConfigs, threadId, configJson, THREAD_CONFIGS_MAX);
  }

  forget(idOrGraph: string, threadId: string): void {
    this.assistants.delete(idOrGraph);
    this.threadConfigs.delete(threadId);
  }

  forgetThread(threadId: string): void {
    this.threadConfigs.delete(threadId);
  }
}

/** What the create presents for the store to check: set when anything in it came from the cache. */
export function expectedReads(
  assistant: Assistant,
  cached: { assistant: boolean; threadConfigJson: string | undefined },
): CreateReads | undefined {
  if (!cached.assistant && cached.threadConfigJson === undefined) return undefined;
  const { assistant_id, version, updated_at } = assistant;
  return {
    assistant: { assistant_id, version, updated_at },
    ...(cached.threadConfigJson !== undefined ? { threadConfigJson: cached.threadConfigJson } : {}),
  };
}

function touch<V>(map: Map<string, V>, key: string): V | undefined {
  const value = map.get(key);
  if (value === undefined) return undefined;
  map.delete(key);
  map.set(key, value);
  return value;
}

function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  for (const oldest of map.keys()) {
    if (map.size <= max) break;
    map.delete(oldest);
  }
}
