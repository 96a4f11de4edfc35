import { BadRequestError } from "../errors.js";

/**
 * One run operation as the LangSmith SDK sends it (a `post` creates, a `patch` completes), reduced
 * to what Berth stores. Fields left undefined are "not sent": a later operation on the same run
 * fills them, an earlier one keeps its value.
 */
export interface RunWrite {
  id: string;
  tenant_id: string;
  /** Set when the operation named (or implied) its project. */
  project_id?: string | undefined;
  trace_id?: string | undefined;
  parent_run_id?: string | null | undefined;
  dotted_order?: string | undefined;
  name?: string | undefined;
  run_type?: string | undefined;
  /** Epoch ms. */
  start_ms?: number | undefined;
  end_ms?: number | undefined;
  error?: string | undefined;
  /** JSON text. */
  inputs?: string | undefined;
  outputs?: string | undefined;
  extra?: string | undefined;
  /** JSON text: the run's events (start, end, streamed tokens…), a list. */
  events?: string | undefined;
  tags?: string | undefined;
  prompt_tokens?: number | undefined;
  completion_tokens?: number | undefined;
  total_tokens?: number | undefined;
  thread_id?: string | undefined;
  agent_run_id?: string | undefined;
  graph_id?: string | undefined;
  /** The model of an LLM run (what its cost is priced by). */
  model_name?: string | undefined;
  /** The dataset example an experiment's run was made for. */
  reference_example_id?: string | undefined;
  /** Bytes of the operation's payload (retention by size counts these). */
  size_bytes: number;
  /**
   * The deployment whose ingest key sent it (absent or null: a workspace API key). An ingest key
   * changes only runs its deployment wrote.
   */
  writer_deployment_id?: string | null | undefined;
}

/** A stored run (what queries read back). */
export interface TraceRun {
  id: string;
  tenant_id: string;
  project_id: string | null;
  trace_id: string | null;
  parent_run_id: string | null;
  dotted_order: string | null;
  name: string | null;
  run_type: string | null;
  start_ms: number | null;
  end_ms: number | null;
  error: string | null;
  inputs: unknown;
  outputs: unknown;
  extra: unknown;
  /** The run's events as sent (`[]` when none were). */
  events: unknown[];
  tags: string[];
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  thread_id: string | null;
  agent_run_id: string | null;
  graph_id: string | null;
  model_name: string | null;
  reference_example_id: string | null;
}

/** A run's status as LangSmith names it, from what was recorded. */
export type RunStatus = "success" | "error" | "pending";

/** `error` wins, then an end time means success; otherwise the run is still going. */
export function statusOf(run: { error: string | null; end_ms: number | null }): RunStatus {
  if (run.error !== null) return "error";
  return run.end_ms !== null ? "success" : "pending";
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `text` is a UUID (run, trace and project ids are). */
export function isUuid(text: unknown): text is string {
  return typeof text === "string" && UUID.test(text);
}

/** A run operation field by field, as parsed from JSON (multipart parts already merged in). */
export type RawRun = Record<string, unknown>;

/**
 * Turns one SDK run operation into a write. Throws BadRequestError (a 4xx for the whole request)
 * when the operation cannot be a run: no UUID id, wrong field types, unreadable times.
 */
export function runWriteOf(
  raw: RawRun,
  op: "post" | "patch",
  tenantId: string,
  projectId: string | undefined,
  size: number,
  /** Fields already held as JSON text (multipart parts): stored as sent, not serialized again. */
  texts: Readonly<Record<string, string>> = {},
): RunWrite {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new BadRequestError("Each run must be a JSON object.");
  }
  const id = raw.id;
  if (!isUuid(id)) throw new BadRequestError("Each run needs an `id` that is a UUID.");
  const where = `run ${id}`;
  const write: RunWrite = {
    id: id.toLowerCase(),
    tenant_id: tenantId,
    project_id: projectId,
    size_bytes: size,
  };
  const traceId = optionalUuid(raw.trace_id, `${where}: trace_id`);
  if (traceId) write.trace_id = traceId;
  if (raw.parent_run_id === null) write.parent_run_id = null;
  else {
    const parent = optionalUuid(raw.parent_run_id, `${where}: parent_run_id`);
    if (parent) write.parent_run_id = parent;
  }
  write.dotted_order = optionalText(raw.dotted_order, `${where}: dotted_order`, 20_000);
  write.name = optionalText(raw.name, `${where}: name`, 1_000);
  write.run_type = optionalText(raw.run_type, `${where}: run_type`, 100);
  write.start_ms = optionalTime(raw.start_time, `${where}: start_time`);
  write.end_ms = optionalTime(raw.end_time, `${where}: end_time`);
  if (raw.error !== undefined && raw.error !== null) {
    write.error = typeof raw.error === "string" ? raw.error : JSON.stringify(raw.error);
  }
  if (raw.inputs !== undefined) write.inputs = texts.inputs ?? JSON.stringify(raw.inputs);
  if (raw.outputs !== undefined) write.outputs = texts.outputs ?? JSON.stringify(raw.outputs);
  if (raw.extra !== undefined) write.extra = texts.extra ?? JSON.stringify(raw.extra);
  if (raw.events !== undefined && raw.events !== null) {
    if (!Array.isArray(raw.events)) throw new BadRequestError(`${where}: events must be a list.`);
    write.events = texts.events ?? JSON.stringify(raw.events);
  }
  if (raw.tags !== undefined && raw.tags !== null) {
    if (!Array.isArray(raw.tags) || raw.tags.some((t) => typeof t !== "string")) {
      throw new BadRequestError(`${where}: tags must be a list of strings.`);
    }
    write.tags = JSON.stringify(raw.tags);
  }
  // A root run's trace is itself (the SDK always sends trace_id; older callers of POST /runs may not).
  if (op === "post" && write.trace_id === undefined && !write.parent_run_id) write.trace_id = write.id;
  const metadata = metadataOf(raw.extra);
  write.thread_id = metaText(metadata.thread_id);
  write.agent_run_id = metaText(metadata.run_id);
  write.graph_id = metaText(metadata.graph_id);
  write.model_name = modelNameOf(raw.extra, metadata);
  const example = optionalUuid(raw.reference_example_id, `${where}: reference_example_id`);
  if (example) write.reference_example_id = example;
  const usage = tokenUsageOf(raw);
  if (usage) {
    write.prompt_tokens = usage.prompt;
    write.completion_tokens = usage.completion;
    write.total_tokens = usage.total;
  }
  return write;
}

/**
 * Merges a later operation on the same run into an earlier one (the SDK sends `post` then
 * `patch`): fields the later one sent win, the rest are kept; sizes add up.
 */
export function mergeWrites(earlier: RunWrite, later: RunWrite): RunWrite {
  const merged: RunWrite = { ...earlier };
  for (const [key, value] of Object.entries(later) as Array<[keyof RunWrite, unknown]>) {
    if (value !== undefined && key !== "size_bytes")
      (merged as unknown as Record<string, unknown>)[key] = value;
  }
  merged.size_bytes = earlier.size_bytes + later.size_bytes;
  return merged;
}

function optionalUuid(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isUuid(value)) throw new BadRequestError(`${field} must be a UUID.`);
  return value.toLowerCase();
}

function optionalText(value: unknown, field: string, max: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new BadRequestError(`${field} must be a string.`);
  return value.length > max ? value.slice(0, max) : value;
}

/** ISO 8601 text, or epoch milliseconds (what `Date.now()` gives; the SDK sends either). */
function optionalTime(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  let ms: number;
  if (typeof value === "number") ms = value;
  else if (typeof value === "string") {
    // LangSmith times may lack the zone (UTC is meant) and carry microseconds.
    const text = /[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`;
    ms = Date.parse(text);
  } else ms = Number.NaN;
  if (!Number.isFinite(ms) || ms < 0 || ms > 8.64e15) throw new BadRequestError(`${field} is not a time.`);
  return Math.trunc(ms);
}

function metadataOf(extra: unknown): Record<string, unknown> {
  if (typeof extra !== "object" || extra === null) return {};
  const metadata = (extra as { metadata?: unknown }).metadata;
  return typeof metadata === "object" && metadata !== null ? (metadata as Record<string, unknown>) : {};
}

/**
 * The model an LLM run called: LangChain's `ls_model_name` metadata, else the invocation
 * parameters' `model` / `model_name` (OpenAI and Anthropic wrappers send one of them).
 */
function modelNameOf(extra: unknown, metadata: Record<string, unknown>): string | undefined {
  const params =
    typeof extra === "object" && extra !== null
      ? ((extra as { invocation_params?: unknown }).invocation_params as Record<string, unknown> | undefined)
      : undefined;
  for (const value of [metadata.ls_model_name, params?.model, params?.model_name, params?.modelName]) {
    if (typeof value === "string" && value !== "" && value.length <= 200) return value;
  }
  return undefined;
}

function metaText(value: unknown): string | undefined {
  if (typeof value === "string" && value.length <= 200) return value;
  return undefined;
}

/** Token counts of a model run, read from where LangChain and the SDK put them. */
export function tokenUsageOf(raw: RawRun): { prompt: number; completion: number; total: number } | null {
  const outputs = raw.outputs;
  if (typeof outputs !== "object" || outputs === null) return null;
  const out = outputs as Record<string, unknown>;
  // traceable()/wrappers: outputs.usage_metadata.
  const direct = fromUsageMetadata(out.usage_metadata);
  if (direct) return direct;
  // LangChain chat models: each generation's message carries usage_metadata (serialized or not).
  let found: { prompt: number; completion: number; total: number } | null = null;
  const generations = Array.isArray(out.generations) ? out.generations.flat(2) : [];
  for (const generation of generations) {
    const message = (generation as { message?: unknown } | null)?.message as
      | { usage_metadata?: unknown; kwargs?: { usage_metadata?: unknown } }
      | undefined;
    const usage = fromUsageMetadata(message?.usage_metadata ?? message?.kwargs?.usage_metadata);
    if (!usage) continue;
    found = found
      ? {
          prompt: found.prompt + usage.prompt,
          completion: found.completion + usage.completion,
          total: found.total + usage.total,
        }
      : usage;
  }
  if (found) return found;
  // Older LLM outputs: llm_output.token_usage (snake_case or LangChain.js's camelCase).
  const llmOutput = out.llm_output ?? out.llmOutput;
  if (typeof llmOutput === "object" && llmOutput !== null) {
    const usage = ((llmOutput as Record<string, unknown>).token_usage ??
      (llmOutput as Record<string, unknown>).tokenUsage) as Record<string, unknown> | undefined;
    if (usage) {
      const prompt = count(usage.prompt_tokens ?? usage.promptTokens);
      const completion = count(usage.completion_tokens ?? usage.completionTokens);
      if (prompt !== null || completion !== null) {
        const total = count(usage.total_tokens ?? usage.totalTokens) ?? (prompt ?? 0) + (completion ?? 0);
        return { prompt: prompt ?? 0, completion: completion ?? 0, total };
      }
    }
  }
  return null;
}

function fromUsageMetadata(value: unknown): { prompt: number; completion: number; total: number } | null {
  if (typeof value !== "object" || value === null) return null;
  const usage = value as Record<string, unknown>;
  const prompt = count(usage.input_tokens);
  const completion = count(usage.output_tokens);
  if (prompt === null && completion === null) return null;
  const total = count(usage.total_tokens) ?? (prompt ?? 0) + (completion ?? 0);
  return { prompt: prompt ?? 0, completion: completion ?? 0, total };
}

function count(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.round(value) : null;
}
