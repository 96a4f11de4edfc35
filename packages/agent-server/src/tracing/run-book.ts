import { convertToDottedOrderFormat } from "langsmith/run_trees";

/** An event in a run's `events` (start, end, error, new_token, text…), as the SDK's tracer records it. */
export interface TraceEvent {
  name: string;
  time: string;
  kwargs?: Record<string, unknown>;
}

/**
 * One run as the SDK's tracer would post it: the fields of its `post` part plus the values of its
 * other parts (inputs, outputs, events, extra, serialized), kept as handed over until the trace is
 * sent (serialising is cheap, the SDK's bookkeeping around it was the cost).
 */
export interface TracedRun {
  readonly id: string;
  readonly name: string;
  readonly run_type: string;
  /** The parent's id, or undefined for a trace's root (an unknown parent makes a root, as in the SDK). */
  readonly parent_run_id: string | undefined;
  readonly trace_id: string;
  readonly dotted_order: string;
  /** Microsecond-precision ISO time (the execution order in the sub-millisecond digits, as the SDK). */
  readonly start_time: string;
  readonly startMs: number;
  readonly execution_order: number;
  end_time: number | undefined;
  inputs: unknown;
  outputs: unknown;
  error: string | undefined;
  readonly serialized: unknown;
  /** Events between the start and the end (tokens, text…): the start and end ones are made when sent. */
  events: TraceEvent[] | undefined;
  /** How the run ended (its last event), undefined while it runs. */
  ended: "end" | "error" | undefined;
  readonly tags: string[];
  /** The metadata the callback manager handed over (not copied: the manager does not change it). */
  readonly metadata: Record<string, unknown> | undefined;
  /** A nested tracing config's metadata: the keys the run's metadata lacks are added when sent. */
  readonly inherited: Record<string, unknown> | undefined;
  /** `extra` beside metadata as the callback gave it (invocation_params, tool_call_id…). */
  extra: Record<string | symbol, unknown> | undefined;
  /** Token usage of a chat model's run, added to its metadata as the SDK's tracer does. */
  usage: unknown;
  /** `extra` of the RunTrees made for this run (getRunTreeWithTracingConfig), made once. */
  treeExtra?: Record<string | symbol, unknown>;
  /** The runs sent together: those of one trace in this process, in start order. */
  readonly group: RunGroup;
}

/** The runs of one trace started in this process, sent when the first of them (its top) ends. */
export interface RunGroup {
  readonly runs: TracedRun[];
  /** The last execution order handed out: start order within the trace. */
  order: number;
}

/** A run of someone else's (a user's `traceable`) that LangChain runs are started under. */
interface ForeignParent {
  trace_id: string;
  dotted_order: string;
  child_execution_order: number;
  /**
   * The run's own tree (a RunTree): LangChain's tracer gives it an `events` list once a run starts
   * under it. Weakly held: the book never learns when a foreign run ends.
   */
  tree?: WeakRef<{ events?: unknown[] }>;
}

/** What starting a run needs beyond its place in the tree. */
export interface RunStart {
  id: string;
  parentRunId: string | undefined;
  name: string;
  run_type: string;
  inputs: unknown;
  serialized: unknown;
  tags: string[];
  metadata: Record<string, unknown> | undefined;
  inherited: Record<string, unknown> | undefined;
  extra: Record<string | symbol, unknown> | undefined;
}

/** Foreign parents kept at most (they have no end the tracer sees; the oldest are forgotten). */
const MAX_FOREIGN = 1_000;

/**
 * The runs in progress in this process, by id, and the trace each belongs to. A run's place
 * (trace id, dotted order) comes from its parent's record, so nothing walks the tree until the
 * trace is sent. No I/O: the handler sends what `end` returns.
 */
export class RunBook {
  readonly #runs = new Map<string, TracedRun>();
  readonly #foreign = new Map<string, ForeignParent>();

  get(id: string): TracedRun | undefined {
    return this.#runs.get(id);
  }

  get size(): number {
    return this.#runs.size;
  }

  /** Adds an event between a run's start and end (a streamed token, text…). */
  event(run: TracedRun, name: string, kwargs?: Record<string, unknown>): void {
    run.events ??= [];
    const time = new Date().toISOString();
    run.events.push(kwargs ? { name, time, kwargs } : { name, time });
  }

  /** Records a run's start, under its parent when the parent is known (here or foreign). */
  start(start: RunStart): TracedRun {
    const existing = this.#runs.get(start.id);
    if (existing) return existing;
    const startMs = Date.now();
    const parentId = start.parentRunId;
    const parent = parentId === undefined ? undefined : this.#runs.get(parentId);
    const foreign = parent || parentId === undefined ? undefined : this.#foreign.get(parentId);
    let group: RunGroup;
    let order: number;
    if (parent) {
      group = parent.group;
      group.order += 1;
      order = group.order;
    } else {
      order = foreign ? foreign.child_execution_order + 1 : 1;
      group = { runs: [], order };
      if (foreign) {
        foreign.child_execution_order = order;
        // As LangChain's tracer does to a parent it adds a child to (its `events` then go out as []).
        const tree = foreign.tree?.deref();
        if (tree) tree.events ??= [];
      }
    }
    const stamp = convertToDottedOrderFormat(startMs, start.id, order);
    const above = parent ?? foreign;
    const run: TracedRun = {
      id: start.id,
      name: start.name,
      run_type: start.run_type,
      parent_run_id: above ? parentId : undefined,
      trace_id: above ? above.trace_id : start.id,
      dotted_order: above ? `${above.dotted_order}.${stamp.dottedOrder}` : stamp.dottedOrder,
      start_time: stamp.microsecondPrecisionDatestring,
      startMs,
      execution_order: order,
      end_time: undefined,
      inputs: start.inputs,
      outputs: undefined,
      error: undefined,
      serialized: start.serialized,
      events: undefined,
      ended: undefined,
      tags: start.tags,
      metadata: start.metadata,
      inherited: start.inherited,
      extra: start.extra,
      usage: undefined,
      group,
    };
    group.runs.push(run);
    this.#runs.set(run.id, run);
    return run;
  }

  /**
   * Records a run's end; answers its group when it was the group's top (the whole group is then
   * taken out of the book, runs still open included, as the SDK would have posted their starts).
   */
  end(run: TracedRun, event: "end" | "error"): RunGroup | undefined {
    run.end_time = Date.now();
    run.ended = event;
    if (run.group.runs[0] !== run) return undefined;
    for (const member of run.group.runs) this.#runs.delete(member.id);
    return run.group;
  }

  /** Runs started under `id` nest under it (a `traceable` run the graph was invoked in). */
  adoptForeign(id: string, parent: ForeignParent): void {
    if (this.#runs.has(id) || this.#foreign.has(id)) return;
    if (this.#foreign.size >= MAX_FOREIGN) {
      const oldest = this.#foreign.keys().next().value;
      if (oldest !== undefined) this.#foreign.delete(oldest);
    }
    this.#foreign.set(id, parent);
  }

  /** Takes every group still open out of the book (the server is stopping). */
  takeAll(): RunGroup[] {
    const groups = new Set<RunGroup>();
    for (const run of this.#runs.values()) groups.add(run.group);
    this.#runs.clear();
    return [...groups];
  }
}
