import type { RunGroup, TracedRun } from "./run-book.js";
import { multipartPart } from "./sender.js";

/** `extra.runtime` of every run, and the environment's metadata: the same for the whole process. */
export interface RunConstants {
  readonly project: string;
  readonly envMetadata: Readonly<Record<string, string>>;
  readonly runtime: Readonly<Record<string, string>>;
}

/** Where @langchain/core keeps a run's trace policy in `extra` (tracers/trace_policy.ts). */
const TRACE_POLICY_KEY = Symbol.for("langchain.trace_policy");

interface TracePolicy {
  processInputs?: (inputs: unknown) => unknown;
  processOutputs?: (outputs: unknown) => unknown;
}

/** Values JSON leaves empty or refuses, written as the SDK's serialiser writes them. */
function wellKnown(_key: string, value: unknown): unknown {
  if (typeof value === "object" && value !== null) {
    if (value instanceof Map) return Object.fromEntries(value);
    if (value instanceof Set) return Array.from(value);
    if (value instanceof RegExp) return value.toString();
    if (value instanceof Error) return { name: value.name, message: value.message };
  } else if (typeof value === "bigint") return value.toString();
  return value;
}

/** A JSON text that never throws: circular structures lose their back references (the SDK says so too). */
export function toJson(value: unknown): string {
  try {
    return JSON.stringify(value, wellKnown);
  } catch {
    const ancestors: object[] = [];
    return JSON.stringify(value, function (this: unknown, key: string, raw: unknown) {
      const out = wellKnown(key, raw);
      if (typeof out !== "object" || out === null) return out;
      while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
      if (ancestors.includes(out)) return "[Circular]";
      ancestors.push(out);
      return out;
    });
  }
}

function stringifyError(error: unknown): string {
  if (error instanceof Error) return error.message + (error.stack ? `\n\n${error.stack}` : "");
  return typeof error === "string" ? error : `${error}`;
}

/** The trace policy's view of a run's payloads; a processor that throws empties it and errors the run. */
function applyPolicy(run: TracedRun): { inputs: unknown; outputs: unknown; error: string | undefined } {
  const policy = run.extra[TRACE_POLICY_KEY] as TracePolicy | undefined;
  let { inputs, outputs, error } = run;
  if (!policy) return { inputs, outputs, error };
  try {
    if (policy.processInputs && inputs !== undefined) inputs = policy.processInputs(inputs);
  } catch (e) {
    inputs = {};
    error ??= stringifyError(e);
  }
  try {
    if (policy.processOutputs && outputs !== undefined) outputs = policy.processOutputs(outputs);
  } catch (e) {
    outputs = undefined;
    error ??= stringifyError(e);
  }
  return { inputs, outputs, error };
}

/** One run's parts: `post.<id>` with the run's fields, then its inputs, outputs, events, extra, serialized. */
function runParts(run: TracedRun, constants: RunConstants): string {
  const { inputs, outputs, error } = applyPolicy(run);
  const post = {
    session_name: constants.project,
    id: run.id,
    name: run.name,
    start_time: run.start_time,
    ...(run.end_time !== undefined ? { end_time: run.end_time } : {}),
    run_type: run.run_type,
    child_runs: [],
    ...(run.parent_run_id !== undefined ? { parent_run_id: run.parent_run_id } : {}),
    trace_id: run.trace_id,
    dotted_order: run.dotted_order,
    tags: run.tags,
    ...(error !== undefined ? { error } : {}),
  };
  const { metadata, ...rest } = run.extra as { metadata?: Record<string, unknown> };
  const extra = {
    ...rest,
    metadata: { ...constants.envMetadata, ...metadata },
    runtime: constants.runtime,
  };
  const id = run.id;
  let parts = multipartPart(`post.${id}`, JSON.stringify(post));
  if (inputs !== undefined) parts += multipartPart(`post.${id}.inputs`, toJson(inputs));
  if (outputs !== undefined) parts += multipartPart(`post.${id}.outputs`, toJson(outputs));
  parts += multipartPart(`post.${id}.events`, toJson(run.events));
  parts += multipartPart(`post.${id}.extra`, toJson(extra));
  if (run.serialized !== undefined) parts += multipartPart(`post.${id}.serialized`, toJson(run.serialized));
  return parts;
}

/** A group's runs as multipart parts (no closing delimiter: the sender batches groups). */
export function encodeGroup(group: RunGroup, constants: RunConstants): string {
  let parts = "";
  for (const run of group.runs) parts += runParts(run, constants);
  return parts;
}

export { stringifyError };
