/**
 * The API's shape of LangGraph's `debug`, `checkpoints` and `tasks` stream payloads, as the official
 * JS server serialises them: checkpoints carry `checkpoint` / `parent_checkpoint` references (the
 * SDK's `Checkpoint`), `parentConfig` becomes `parent_config`, configs lose LangGraph's internal
 * `__*` keys and callbacks, and a task running a subgraph carries a `checkpoint` in place of its
 * raw state config.
 */

type Config = { configurable?: Record<string, unknown> | null; [key: string]: unknown };

function isConfig(value: unknown): value is Config & { configurable: Record<string, unknown> } {
  if (typeof value !== "object" || value === null) return false;
  const configurable = (value as Config).configurable;
  return typeof configurable === "object" && configurable !== null;
}

/** A checkpoint's reference: null unless the config names a thread and a checkpoint id. */
function checkpointOf(config: unknown): Record<string, unknown> | null {
  if (!isConfig(config)) return null;
  const c = config.configurable;
  if (typeof c.thread_id !== "string" || typeof c.checkpoint_id !== "string") return null;
  return {
    thread_id: c.thread_id,
    checkpoint_id: c.checkpoint_id,
    checkpoint_ns: typeof c.checkpoint_ns === "string" ? c.checkpoint_ns : "",
    checkpoint_map: c.checkpoint_map ?? null,
  };
}

/** A subgraph task's reference: its namespace (no checkpoint id yet while it runs). */
function taskCheckpointOf(config: unknown): Record<string, unknown> | null {
  if (!isConfig(config)) return null;
  const c = config.configurable;
  if (typeof c.thread_id !== "string") return null;
  return {
    thread_id: c.thread_id,
    checkpoint_id: typeof c.checkpoint_id === "string" && c.checkpoint_id ? c.checkpoint_id : null,
    checkpoint_ns: typeof c.checkpoint_ns === "string" ? c.checkpoint_ns : "",
    checkpoint_map: c.checkpoint_map ?? null,
  };
}

/** A config without LangGraph's internal configurable keys (`__pregel_*`, …) and callbacks. */
function publicConfig(config: unknown): unknown {
  if (!isConfig(config)) return config;
  const { callbacks: _callbacks, ...rest } = config;
  return {
    ...rest,
    configurable: Object.fromEntries(
      Object.entries(config.configurable).filter(([k]) => !k.startsWith("__")),
    ),
  };
}

/** A debug/tasks task: a subgraph's state config becomes its `checkpoint`. */
export function apiTask(task: unknown): unknown {
  if (typeof task !== "object" || task === null) return task;
  const { state, ...rest } = task as { state?: unknown; [key: string]: unknown };
  const checkpoint = taskCheckpointOf(state);
  return checkpoint ? { ...rest, checkpoint } : task;
}

/** A checkpoint payload (`checkpoints` mode, or a `debug` event of type `checkpoint`). */
export function apiCheckpoint(payload: unknown): unknown {
  if (typeof payload !== "object" || payload === null) return payload;
  const { parentConfig, config, tasks, ...rest } = payload as {
    config?: unknown;
    parentConfig?: unknown;
    tasks?: unknown;
    [key: string]: unknown;
  };
  return {
    ...rest,
    config: publicConfig(config),
    parent_config: publicConfig(parentConfig),
    checkpoint: checkpointOf(config),
    parent_checkpoint: checkpointOf(parentConfig),
    tasks: Array.isArray(tasks) ? tasks.map(apiTask) : tasks,
  };
}

/** A `debug` event: checkpoints and task results in the API's shape, other types as they are. */
export function apiDebugEvent(event: unknown): unknown {
  if (typeof event !== "object" || event === null) return event;
  const e = event as { type?: unknown; payload?: unknown };
  if (e.type === "checkpoint") return { ...e, payload: apiCheckpoint(e.payload) };
  if (e.type === "task_result") return { ...e, payload: apiTask(e.payload) };
  return event;
}
