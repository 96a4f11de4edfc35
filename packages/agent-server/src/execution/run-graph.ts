import type { RunKwargs } from "@berth-platform/schemas";
import type { RunnableConfig } from "@langchain/core/runnables";
import { Command } from "@langchain/langgraph";
import { toWire } from "../domain/serialize.js";
import type { WireJson } from "../domain/wire-json.js";
import type { RunnableGraph } from "../graphs/registry.js";
import { STREAM_FLUSHED_KEY, WRITE_BEHIND_KEY } from "../storage/checkpoint-metadata.js";
import type { RunRecord } from "../storage/types.js";
import type { StreamBroker } from "../stream/types.js";
import type { EventLoopTurns } from "./event-loop-turns.js";
import { ResumeFilter } from "./resume-filter.js";
import { interruptsByTask } from "./state.js";
import { nativeModes, StreamEventMapper } from "./stream-modes.js";

/** Server facts added to every run's metadata (reference §2.8). */
export interface RunEnvironment {
  serverVersion: string;
  langgraphVersion: string;
  apiUrl: string;
}

/** The thread after a run: what `complete` stores (its values as the API's JSON, written once). */
export interface ThreadAfterRun {
  valuesJson: string;
  interrupts: Record<string, unknown[]>;
  hasNext: boolean;
}

/**
 * The API's snake_case config keys and LangGraph.js's names for them: the API takes what the
 * Python server reads, LangGraph.js reads camelCase and ignores the rest.
 */
const CAMEL_CONFIG_KEYS: ReadonlyArray<readonly [snake: string, camel: string]> = [
  ["recursion_limit", "recursionLimit"],
  ["max_concurrency", "maxConcurrency"],
  ["run_name", "runName"],
  ["run_id", "runId"],
];

/** A run's recorded config in LangGraph.js's names (snake_case keys renamed, camelCase ones win). */
export function toLangGraphConfig(config: Record<string, unknown>): Record<string, unknown> {
  const out = { ...config };
  for (const [snake, camel] of CAMEL_CONFIG_KEYS) {
    if (!(snake in out)) continue;
    if (out[camel] === undefined && out[snake] !== null) out[camel] = out[snake];
    delete out[snake];
  }
  return out;
}

/** The LangGraph config of a run: its recorded config plus run-time facts. */
export function runnableConfigFor(run: RunRecord, env: RunEnvironment): RunnableConfig {
  const { config, context } = run.kwargs;
  const configurable = { ...(config.configurable as Record<string, unknown>) };
  if (configurable.checkpoint_id === null) delete configurable.checkpoint_id;
  return {
    ...(toLangGraphConfig(config) as RunnableConfig),
    configurable,
    metadata: {
      ...run.metadata,
      ...(config.metadata as Record<string, unknown>),
      graph_id: configurable.graph_id,
      assistant_id: run.assistant_id,
      thread_id: run.thread_id,
      run_id: run.run_id,
      user_id: configurable.user_id,
      run_attempt: run.attempt,
      langgraph_version: env.langgraphVersion,
      langgraph_api_version: env.serverVersion,
      langgraph_plan: "developer",
      langgraph_host: "self-hosted",
      langgraph_api_url: env.apiUrl,
    },
    ...(context ? { context } : {}),
  };
}

/** The API's `command` (`resume` / `update` / `goto`) as LangGraph's Command, or undefined when empty. */
export function toCommand(command: unknown): Command | undefined {
  const c = command as { resume?: unknown; update?: unknown; goto?: unknown } | null | undefined;
  if (!c || (c.resume === undefined && c.update === undefined && c.goto === undefined)) return undefined;
  return new Command({
    ...(c.resume !== undefined ? { resume: c.resume } : {}),
    ...(c.update !== undefined ? { update: c.update as Record<string, unknown> } : {}),
    ...(c.goto !== undefined ? { goto: c.goto as string } : {}),
  });
}

function graphInput(kwargs: RunKwargs): unknown {
  return toCommand(kwargs.command) ?? kwargs.input ?? null;
}

/**
 * Whether the graph's `values` stream chunks are its whole state: its output channels are its
 * state channels, in the same order (a StateGraph without a narrower output schema). Read
 * duck-typed: the project's own LangGraph copy may name things differently, and then the answer
 * is no.
 */
export function valuesAreWholeState(graph: RunnableGraph): boolean {
  const output: unknown = Reflect.get(graph, "outputChannels");
  const stream: unknown = Reflect.get(graph, "streamChannels");
  if (typeof output === "string" || typeof stream === "string") return output === stream;
  return (
    Array.isArray(output) &&
    Array.isArray(stream) &&
    output.length === stream.length &&
    output.every((key, i) => key === stream[i])
  );
}

/**
 * The thread after a run, from the last root `values` chunk when that says it all: the graph
 * streamed its whole state, nothing interrupted (LangGraph streams `{__interrupt__}` as a values
 * chunk for an `interrupt()` and for a static breakpoint alike) and the run finished, so nothing
 * is next. Otherwise (no chunk, an interrupt, a narrower output schema) undefined: the caller
 * reads the snapshot.
 *
 * It also keeps the run's result, what `/runs/wait` and `/join` answer: the last root `values`
 * chunk, as the official servers answer it. That is `{__interrupt__: [...]}` for a run that
 * stopped at an interrupt, and the output schema's values for a graph whose output is narrower
 * than its state; for the rest it is the thread's values, sent as they are.
 */
class FinalValues {
  private last: unknown;
  private seen = false;
  /** Some root chunk carried `__interrupt__` (the thread then comes from the snapshot). */
  private interrupted = false;
  /** The last one did (the result is that chunk). */
  private endedAtInterrupt = false;

  constructor(
    private readonly usable: boolean,
    private readonly wire: WireJson,
  ) {}

  observe(namespace: readonly string[], mode: string, data: unknown): void {
    if (mode !== "values" || namespace.length > 0) return;
    this.last = data;
    this.seen = true;
    this.endedAtInterrupt = typeof data === "object" && data !== null && Object.hasOwn(data, "__interrupt__");
    if (this.endedAtInterrupt) this.interrupted = true;
  }

  thread(): ThreadAfterRun | undefined {
    if (!this.usable || !this.seen || this.interrupted) return undefined;
    return { valuesJson: this.wire.stringify(this.last), interrupts: {}, hasNext: false };
  }

  /** The run's result when it is not the thread's values (see above); undefined when it is. */
  resultJson(): string | undefined {
    if (!this.seen || (this.usable && !this.endedAtInterrupt)) return undefined;
    return this.wire.stringify(this.last);
  }
}

/** How a run ended: the thread after it, and its result when that is not the thread's values. */
export interface RunResult {
  thread: ThreadAfterRun;
  /** What `/runs/wait` and `/join` answer instead of the thread's values (FinalValues). */
  resultJson?: string;
}

/** The thread's state after a run, read from its latest checkpoint. */
export async function threadAfterRun(
  graph: RunnableGraph,
  threadId: string,
  wire: WireJson,
): Promise<ThreadAfterRun> {
  const snapshot = await graph.getState({ configurable: { thread_id: threadId } });
  return {
    valuesJson: wire.stringify(snapshot.values),
    interrupts: interruptsByTask(snapshot),
    hasNext: snapshot.next.length > 0,
  };
}

/**
 * Executes a run to its end on the graph, publishing the requested stream modes as it goes, and
 * returns the thread's state after it. Throws what the graph throws (or the abort reason).
 */
export async function executeRun(args: {
  graph: RunnableGraph;
  run: RunRecord;
  config: RunnableConfig;
  signal: AbortSignal;
  broker: StreamBroker;
  turns: EventLoopTurns;
  wire: WireJson;
  /** Continue from the run's own last checkpoint (a re-attempt) instead of applying its input again. */
  resume: boolean;
}): Promise<RunResult> {
  const { graph, run, config, signal, broker, turns, wire } = args;
  const mapper = new StreamEventMapper(run.kwargs.stream_mode, run.kwargs.subgraphs);
  const input = args.resume ? null : graphInput(run.kwargs);
  const streamMode = nativeModes(run.kwargs.stream_mode.filter((m) => m !== "events"));
  // A resumable run's events must be kept before the step that made them is checkpointed (a run
  // resumed after a crash starts after that checkpoint and would not emit them again): the
  // checkpointer awaits this barrier. LangGraph queues a step's chunks before it asks to save the
  // step, and the queue hands them over in microtasks; so once a later turn of the event loop
  // finds this loop waiting for its next chunk (not holding one), every chunk queued before the
  // save has been published — and published means logged (MemoryStreamBroker with its log).
  // It answers the id of the last event kept, which the checkpoint is stamped with.
  let holding = false;
  const flushed = async () => {
    for (let turn = 0; turn < 1_000 && (turn === 0 || holding); turn += 1) {
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return broker.lastLoggedId?.(run.run_id);
  };
  const filter =
    args.resume && run.kwargs.resumable
      ? await ResumeFilter.open(graph, broker, run.run_id, run.thread_id)
      : undefined;
  const publish = (event: string, data: unknown) => {
    if (!filter?.drops(event, data)) broker.publish(run.run_id, event, data);
  };
  const options = {
    ...config,
    configurable: {
      ...config.configurable,
      // The worker settles the run's writes before it reports the run's end.
      [WRITE_BEHIND_KEY]: true,
      ...(run.kwargs.resumable ? { [STREAM_FLUSHED_KEY]: flushed } : {}),
    },
    streamMode,
    signal,
    // Always ask for namespaces: subgraph events are only forwarded when the run asked for them.
    subgraphs: true,
    interruptBefore: run.kwargs.interrupt_before ?? undefined,
    interruptAfter: run.kwargs.interrupt_after ?? undefined,
  };
  const publishChunk = (chunk: unknown) => {
    const [namespace, mode, data] = chunk as [string[], string, unknown];
    for (const out of mapper.map(namespace, mode, data)) publish(out.event, out.data);
  };
  // Mapped (their wire form built) only if published: a broker may hold them for a listener that
  // may never come. In order, since the mapper keeps what earlier chunks completed.
  const publishChunkLazily = (chunk: unknown) => {
    const [namespace, mode, data] = chunk as [string[], string, unknown];
    broker.publishLazily?.(run.run_id, () =>
      mapper.map(namespace, mode, data).filter((out) => !filter?.drops(out.event, out.data)),
    );
  };
  if (run.kwargs.stream_mode.includes("events")) {
    // `events` needs LangGraph's event stream; the other modes ride in it as the root chain's
    // on_chain_stream chunks, so one pass serves both.
    const result = new FinalValues(false, wire);
    let rootRunId: string | undefined;
    for await (const event of graph.streamEvents(input, { ...options, version: "v2" })) {
      holding = true;
      await turns.next();
      holding = false;
      rootRunId ??= event.run_id;
      const root = event.event === "on_chain_stream" && event.run_id === rootRunId;
      if (root) {
        const [namespace, mode, data] = event.data.chunk as [string[], string, unknown];
        result.observe(namespace, mode, data);
      }
      if (!broker.wanted(run.run_id)) continue;
      if (root) publishChunk(event.data.chunk);
      else publish("events", toWire(event));
    }
    return withResult(await threadAfterRun(graph, run.thread_id, wire), result.resultJson());
  }
  // The end-of-run snapshot (load and deserialise the checkpoint, plan the next tasks) cost ~0.45 ms
  // of CPU per echo run; the last values chunk already holds the same state when nothing is next.
  const final = new FinalValues(streamMode.includes("values") && valuesAreWholeState(graph), wire);
  for await (const chunk of await graph.stream(input, options)) {
    // Storage calls resolve without real I/O, so concurrent runs could chain microtasks for
    // hundreds of ms and starve the HTTP server (accepts, /ok): give the event loop a turn per step.
    holding = true;
    await turns.next();
    holding = false;
    const [namespace, mode, data] = chunk as [string[], string, unknown];
    final.observe(namespace, mode, data);
    if (broker.publishLazily) publishChunkLazily(chunk);
    else if (broker.wanted(run.run_id)) publishChunk(chunk);
  }
  return withResult(final.thread() ?? (await threadAfterRun(graph, run.thread_id, wire)), final.resultJson());
}

function withResult(thread: ThreadAfterRun, resultJson: string | undefined): RunResult {
  return resultJson === undefined ? { thread } : { thread, resultJson };
}
