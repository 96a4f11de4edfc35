import type {
  Assistant,
  JsonObject,
  MultitaskStrategy,
  RunCreateStateful,
  RunKwargs,
  StreamMode,
} from "@berth/schemas";
import type { NewRun } from "../storage/types.js";

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

function asObject(value: unknown): JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as JsonObject) : {};
}

/**
 * The run record, with config merged as the official server does (reference §2.7):
 * assistant.config ← thread.config ← request config, then the server's own configurable keys.
 */
export function buildRunRecord(input: RunRecordInput): NewRun {
  const { body, assistant, threadConfig } = input;
  const requestConfig = asObject(body.config);
  const configurable: JsonObject = {
    ...asObject(assistant.config.configurable),
    ...asObject(threadConfig.configurable),
    ...asObject(requestConfig.configurable),
    ...(input.caller.headers ?? {}),
    ...(input.caller.permissions
      ? { langgraph_auth_user_id: input.caller.userId, langgraph_auth_permissions: input.caller.permissions }
      : {}),
    run_id: input.runId,
    user_id: input.caller.userId,
    graph_id: assistant.graph_id,
    thread_id: input.threadId,
    assistant_id: assistant.assistant_id,
    checkpoint_id: body.checkpoint_id ?? asObject(body.checkpoint).checkpoint_id ?? null,
  };
  const config: JsonObject = {
    ...assistant.config,
    ...threadConfig,
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
