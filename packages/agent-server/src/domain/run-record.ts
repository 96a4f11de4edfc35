import type {
  Assistant,
  JsonObject,
  MultitaskStrategy,
  RunCreateStateful,
  RunKwargs,
  StreamMode,
} from "@berth-platform/schemas";
import type { NewRun } from "../storage/types.js";
import { asObject } from "./json-object.js";

/** Who is creating the run (the custom-auth issue fills this from the authenticated user). */
export interface RunCaller {
  userId: string;
  /** Request headers the official server copies into `configurable` (`x-*` but credentials, `user-agent`). */
  headers?: Record<string, string> | undefined;
  /** Set when custom auth authenticated the caller. */
  permissions?: string[] | undefined;
}

/** Everything needed to turn a validated request into the run to insert. */
export interface RunRecordInput {
  runId: string;
  threadId: string;
  assistant: Assistant;
  /** The thread's own config (merged between the assistant's and the request's). */
  threadConfig: JsonObject;
  body: RunCreateStateful;
  caller: RunCaller;
  /** Strategy applied when the request names none. */
  defaultStrategy: MultitaskStrategy;
  temporary: boolean;
  nowMs: number;
}

/**
 * `configurable` keys only the server writes (the official server drops them from what a client
 * sends, with a warning, rather than refusing the request).
 */
const RESERVED_CONFIGURABLE = ["langgraph_auth_user", "langgraph_auth_user_id", "langgraph_auth_permissions"];

function withoutReserved(configurable: JsonObject): JsonObject {
  const out = { ...configurable };
  for (const key of RESERVED_CONFIGURABLE) delete out[key];
  return out;
}

/**
 * The thread's config once a run is created on it, as the official servers record it: assistant
 * config ← thread config ← request config, `configurable` merged the same way (without the keys
 * only the server writes). Factory graphs are built with it on the state endpoints.
 */
export function threadConfigAfterRun(
  assistant: Assistant,
  threadConfig: JsonObject,
  requestConfig: unknown,
): JsonObject {
  const request = asObject(requestConfig);
  return {
    ...assistant.config,
    ...threadConfig,
    ...request,
    configurable: withoutReserved({
      ...asObject(assistant.config.configurable),
      ...asObject(threadConfig.configurable),
      ...asObject(request.configurable),
    }),
  };
}

/**
 * The run record, with config merged as the official server does (reference §2.7):
 * assistant.config ← request config, `configurable` assistant ← thread ← request, then the
 * server's own configurable keys.
 */
export function buildRunRecord(input: RunRecordInput): NewRun {
  const { body, assistant, threadConfig } = input;
  const requestConfig = asObject(body.config);
  const given = withoutReserved({
    ...asObject(assistant.config.configurable),
    ...asObject(threadConfig.configurable),
    ...asObject(requestConfig.configurable),
  });
  const authenticated = input.caller.permissions !== undefined;
  const configurable: JsonObject = {
    ...given,
    ...(input.caller.headers ?? {}),
    // The identity custom auth established, in the official server's keys (empty without auth).
    langgraph_auth_user: authenticated
      ? { identity: input.caller.userId, permissions: input.caller.permissions ?? [], is_authenticated: true }
      : null,
    langgraph_auth_user_id: authenticated ? input.caller.userId : "",
    langgraph_auth_permissions: input.caller.permissions ?? [],
    run_id: input.runId,
    // The caller's own user_id (request, then thread, then assistant) is kept, as the official
    // server does; without one, the authenticated identity (or "").
    user_id: typeof given.user_id === "string" ? given.user_id : input.caller.userId,
    graph_id: assistant.graph_id,
    thread_id: input.threadId,
    assistant_id: assistant.assistant_id,
    checkpoint_id: body.checkpoint_id ?? asObject(body.checkpoint).checkpoint_id ?? null,
  };
  // Only the thread's `configurable` carries over to its runs (the official JS server's merge): its
  // other keys, e.g. an earlier run's `recursion_limit`, do not.
  const config: JsonObject = {
    ...assistant.config,
    ...requestConfig,
    metadata: { ...asObject(requestConfig.metadata), created_by: "system" },
    configurable,
  };
  const streamMode = (
    body.stream_mode === undefined || body.stream_mode === null
      ? ["values"]
      : Array.isArray(body.stream_mode)
        ? body.stream_mode
        : [body.stream_mode]
  ) as StreamMode[];
  const kwargs: RunKwargs = {
    input: body.input ?? null,
    command: body.command ?? null,
    config,
    context: body.context
      ? { ...assistant.context, ...body.context }
      : Object.keys(assistant.context).length
        ? assistant.context
        : null,
    webhook: body.webhook ?? null,
    temporary: input.temporary,
    stream_mode: streamMode,
    subgraphs: body.stream_subgraphs ?? false,
    resumable: body.stream_resumable ?? false,
    feedback_keys: body.feedback_keys ?? null,
    interrupt_before: body.interrupt_before ?? null,
    interrupt_after: body.interrupt_after ?? null,
    checkpoint: body.checkpoint ?? null,
  };
  const delayMs = Math.round((body.after_seconds ?? 0) * 1000);
  const availableAt = input.nowMs + delayMs;
  return {
    run_id: input.runId,
    thread_id: input.threadId,
    assistant_id: assistant.assistant_id,
    // As the official server does, a delayed run's created_at is when it becomes runnable.
    created_at: new Date(availableAt).toISOString(),
    metadata: asObject(body.metadata),
    kwargs,
    multitask_strategy: body.multitask_strategy ?? input.defaultStrategy,
    available_at: availableAt,
  };
}
