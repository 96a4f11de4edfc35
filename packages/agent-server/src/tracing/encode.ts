import type { RunGroup, TracedRun } from "./run-book.js";
import { multipartPart } from "./sender.js";

/** `extra.runtime` of every run, and the environment's metadata: the same for the whole process. */
export interface RunConstants {
  readonly project: string;
  readonly envMetadata: Readonly<Record<string, string>>;
  readonly runtime: Readonly<Record<string, string>>;
}

/** The constants as JSON texts, made once. */
interface ConstantTexts {
  project: string;
  runtime: string;
  /** The environment's metadata without its braces ("" when there is none). */
  envInner: string;
  envKeys: string[];
}
const texts = new WeakMap<RunConstants, ConstantTexts>();
function textsOf(constants: RunConstants): ConstantTexts {
  let out = texts.get(constants);
  if (!out) {
    out = {
      project: JSON.stringify(constants.project),
      runtime: JSON.stringify(constants.runtime),
      envInner: JSON.stringify(constants.envMetadata).slice(1, -1),
      envKeys: Object.keys(constants.envMetadata),
    };
    texts.set(constants, out);
  }
  return out;
}

/**
 * Metadata keys a nested tracing config may override even when a run already has them
 * (@langchain/core's OVERRIDABLE_LANGSMITH_INHERITABLE_METADATA_KEYS).
 */
export const OVERRIDABLE = new Set(["ls_agent_type"]);

/** A run's metadata as the SDK's tracer ends up with it: its own, then the nested config's missing keys. */
export function runMetadata(
  run: TracedRun,
  base?: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = base ? { ...base, ...run.metadata } : { ...run.metadata };
  const inherited = run.inherited;
  if (inherited)
    for (const key in inherited)
      if (!(run.metadata && Object.hasOwn(run.metadata, key)) || OVERRIDABLE.has(key))
        out[key] = inherited[key];
  if (run.usage !== undefined) out.usage_metadata = run.usage;
  return out;
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
  const policy = run.extra?.[TRACE_POLICY_KEY] as TracePolicy | undefined;
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

/**
 * The same messages appear in many runs of a trace (the state's messages are each node's input and
 * the graph's output): each one's `toJSON()` (LangChain's serialised form: key mapping, escaping)
 * is computed once per trace and reused. Only containers down to a few levels are walked (state →
 * messages → message, a model's [[messages]] and generations); JSON.stringify does the rest.
 */
class SerialisedOnce {
  readonly #done = new Map<object, unknown>();

  of(value: unknown, depth = 0): unknown {
    if (typeof value !== "object" || value === null || depth > 4) return value;
    if (Array.isArray(value)) return value.map((item) => this.of(item, depth + 1));
    const proto = Object.getPrototypeOf(value);
    if ((proto === Object.prototype || proto === null) && !Object.hasOwn(value, "toJSON")) {
      const out: Record<string, unknown> = {};
      for (const key in value) out[key] = this.of((value as Record<string, unknown>)[key], depth + 1);
      return out;
    }
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON !== "function" || !("lc_serializable" in value)) return value;
    let done = this.#done.get(value);
    if (done === undefined) {
      done = toJSON.call(value);
      this.#done.set(value, done);
    }
    return done;
  }
}

/** ISO time of an epoch millisecond. */
function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** `post.<id>`: the run's own fields, written directly (ten small objects a trace otherwise). */
function postJson(run: TracedRun, error: string | undefined, project: string): string {
  let post = `{"session_name":${project},"id":${JSON.stringify(run.id)},"name":${JSON.stringify(run.name)},"start_time":"${run.start_time}"`;
  if (run.end_time !== undefined) post += `,"end_time":${run.end_time}`;
  post += `,"run_type":${JSON.stringify(run.run_type)},"child_runs":[]`;
  if (run.parent_run_id !== undefined) post += `,"parent_run_id":${JSON.stringify(run.parent_run_id)}`;
  post += `,"trace_id":${JSON.stringify(run.trace_id)},"dotted_order":${JSON.stringify(run.dotted_order)},"tags":${toJson(run.tags)}`;
  if (error !== undefined) post += `,"error":${JSON.stringify(error)}`;
  return `${post}}`;
}

/** `events`: start, what happened in between, then end or error. */
function eventsJson(run: TracedRun): string {
  let events = `[{"name":"start","time":"${iso(run.startMs)}"}`;
  if (run.events) events += `,${toJson(run.events).slice(1, -1)}`;
  if (run.ended && run.end_time !== undefined)
    events += `,{"name":"${run.ended}","time":"${iso(run.end_time)}"}`;
  return `${events}]`;
}

/**
 * The metadata as sent: the environment's, the run's over it, then the nested config's keys the run
 * lacks and the token usage. Written by joining the JSON of each (a run's metadata has ~25 keys,
 * merging them into one object per run was a quarter of the encoding); merged as objects only when
 * a key appears twice.
 */
function metadataJson(run: TracedRun, constants: RunConstants, own: ConstantTexts): string {
  const metadata = run.metadata;
  const added: Record<string, unknown> = {};
  let adding = false;
  const inherited = run.inherited;
  if (inherited)
    for (const key in inherited)
      if (!(metadata && Object.hasOwn(metadata, key)) || OVERRIDABLE.has(key)) {
        added[key] = inherited[key];
        adding = true;
      }
  if (run.usage !== undefined) {
    added.usage_metadata = run.usage;
    adding = true;
  }
  const twice =
    own.envKeys.some((key) => (metadata && Object.hasOwn(metadata, key)) || Object.hasOwn(added, key)) ||
    (adding && metadata !== undefined && Object.keys(added).some((key) => Object.hasOwn(metadata, key)));
  if (twice) return toJson(runMetadata(run, constants.envMetadata));
  const parts: string[] = [];
  if (own.envInner) parts.push(own.envInner);
  const inner = metadata ? toJson(metadata).slice(1, -1) : "";
  if (inner) parts.push(inner);
  if (adding) parts.push(toJson(added).slice(1, -1));
  return `{${parts.join(",")}}`;
}

/** `extra`: what the callback gave, the metadata over the environment's, the runtime block. */
function extraJson(run: TracedRun, constants: RunConstants, own: ConstantTexts): string {
  const metadata = metadataJson(run, constants, own);
  const runtime = own.runtime;
  const extra = run.extra;
  if (extra === undefined) return `{"metadata":${metadata},"runtime":${runtime}}`;
  if (Object.hasOwn(extra, "metadata") || Object.hasOwn(extra, "runtime"))
    return toJson({ ...extra, metadata: JSON.parse(metadata), runtime: constants.runtime });
  const given = toJson(extra);
  return `${given.length > 2 ? `${given.slice(0, -1)},` : "{"}"metadata":${metadata},"runtime":${runtime}}`;
}

/** One run's parts: `post.<id>` with the run's fields, then its inputs, outputs, events, extra, serialized. */
function runParts(run: TracedRun, constants: RunConstants, once: SerialisedOnce): string {
  const { inputs, outputs, error } = applyPolicy(run);
  const own = textsOf(constants);
  const id = run.id;
  let parts = multipartPart(`post.${id}`, postJson(run, error, own.project));
  if (inputs !== undefined) parts += multipartPart(`post.${id}.inputs`, toJson(once.of(inputs)));
  if (outputs !== undefined) parts += multipartPart(`post.${id}.outputs`, toJson(once.of(outputs)));
  parts += multipartPart(`post.${id}.events`, eventsJson(run));
  parts += multipartPart(`post.${id}.extra`, extraJson(run, constants, own));
  if (run.serialized !== undefined) parts += multipartPart(`post.${id}.serialized`, toJson(run.serialized));
  return parts;
}

/** A group's runs as multipart parts (no closing delimiter: the sender batches groups). */
export function encodeGroup(group: RunGroup, constants: RunConstants): string {
  let parts = "";
  const once = new SerialisedOnce();
  for (const run of group.runs) parts += runParts(run, constants, once);
  return parts;
}

export { stringifyError };
