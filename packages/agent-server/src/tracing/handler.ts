import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { RunTree } from "langsmith/run_trees";
import { encodeGroup, OVERRIDABLE, type RunConstants, stringifyError } from "./encode.js";
import { ParentTrees } from "./parent-trees.js";
import type { RunBook, TracedRun } from "./run-book.js";
import { coerceToDict, lastId, type Serialized, usageOf } from "./run-values.js";
import type { TraceSink } from "./sender.js";

type Dict = Record<string, unknown>;

/**
 * The agent server's tracer: a LangChain callback handler that records each run once, in a plain
 * record, and sends a trace's runs in one multipart body when its top run ends: the fields, parts
 * and values LangChain's own tracer (the `langsmith` SDK's RunTree per run, batched by its client)
 * would send, for a fraction of its CPU (docs/decisions.md, "Cheap tracing").
 *
 * It is named `langchain_tracer` and has the methods @langchain/core and `langsmith` look for on
 * that tracer, so core adds no LangChainTracer of its own to the graph's runs, and a user's
 * `traceable` inside a node finds its parent here (getRunTreeWithTracingConfig). The `_createRunFor*`
 * methods are what core calls synchronously on a tracer as a run starts, with the raw inputs.
 * Copies made for a nested tracing config (copyWithTracingConfig) share the book: they are
 * prototype-linked views holding only their own metadata and tags.
 */
export class LeanTracer extends BaseCallbackHandler {
  override name = "langchain_tracer" as const;
  /** Every callback finishes synchronously, so core awaits it in place instead of queueing it. */
  override awaitHandlers = true;
  readonly projectName: string;
  /** Metadata a nested config adds to runs that lack the keys (copyWithTracingConfig). */
  tracingMetadata: Dict | undefined = undefined;
  tracingTags: string[] = [];
  protected readonly book: RunBook;
  protected readonly sink: TraceSink;
  protected readonly constants: RunConstants;
  protected readonly trees: ParentTrees;

  constructor(book: RunBook, sink: TraceSink, constants: RunConstants) {
    super();
    this.book = book;
    this.sink = sink;
    this.constants = constants;
    this.projectName = constants.project;
    this.trees = new ParentTrees(constants.project);
  }

  override copy(): this {
    return this;
  }

  // --- What @langchain/core and langsmith ask of a "langchain_tracer" -------------------------

  copyWithTracingConfig({ metadata, tags }: { metadata?: Dict; tags?: string[] }): LeanTracer {
    // Nested configs mostly repeat what this view holds already: then this view is the copy.
    let merged = this.tracingMetadata;
    if (metadata !== undefined) {
      for (const [key, value] of Object.entries(metadata)) {
        if (merged && Object.hasOwn(merged, key) && (!OVERRIDABLE.has(key) || merged[key] === value))
          continue;
        if (merged === this.tracingMetadata) merged = { ...this.tracingMetadata };
        (merged as Dict)[key] = value;
      }
    }
    const newTags = tags?.filter((tag) => !this.tracingTags.includes(tag)) ?? [];
    if (merged === this.tracingMetadata && newTags.length === 0) return this;
    const view = Object.create(this) as LeanTracer;
    view.tracingMetadata = merged;
    view.tracingTags = newTags.length > 0 ? [...this.tracingTags, ...new Set(newTags)] : this.tracingTags;
    return view;
  }

  /** Copies share one book: core coalesces tracers by this key. */
  _getRunStoreKey(): unknown {
    return this.book;
  }

  /** Marks this handler as a tracer to core, which then calls the `_createRunFor*` methods in line. */
  _addRunToRunMap(run: unknown): unknown {
    return run;
  }

  /** What RunTree.fromRunnableConfig reads of a parent run. */
  getRun(id: string): TracedRun | undefined {
    return this.book.get(id);
  }

  /** A RunTree for a recorded run: where a `traceable` started in it finds its parent (parent-trees.ts). */
  getRunTreeWithTracingConfig(id: string): RunTree | undefined {
    const run = this.book.get(id);
    return run ? this.trees.of(run) : undefined;
  }

  /** The graph was invoked inside a `traceable`: its runs go under that run. */
  updateFromRunTree(runTree: RunTree): void {
    if (!runTree.dotted_order) return;
    this.book.adoptForeign(runTree.id, {
      trace_id: runTree.trace_id,
      dotted_order: runTree.dotted_order,
      child_execution_order: runTree.child_execution_order ?? 1,
      tree: new WeakRef(runTree),
    });
  }

  // --- Starts: called in line by core's callback manager ------------------------------------

  private tagsFor(tags: string[] | undefined): string[] {
    if (this.tracingTags.length === 0) return tags ?? [];
    return [...new Set([...(tags ?? []), ...this.tracingTags])];
  }

  _createRunForChainStart(
    chain: Serialized,
    inputs: unknown,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Dict,
    runType?: string,
    name?: string,
    extra?: Dict,
  ): TracedRun {
    return this.book.start({
      id: runId,
      parentRunId,
      name: name ?? lastId(chain),
      run_type: runType ?? "chain",
      inputs,
      serialized: chain,
      tags: this.tagsFor(tags),
      metadata,
      inherited: this.tracingMetadata,
      extra,
    });
  }

  _createRunForChatModelStart(
    llm: Serialized,
    messages: unknown[][],
    runId: string,
    parentRunId?: string,
    extraParams?: Dict,
    tags?: string[],
    metadata?: Dict,
    name?: string,
  ): TracedRun {
    return this.llmStart(llm, { messages }, runId, parentRunId, extraParams, tags, metadata, name);
  }

  _createRunForLLMStart(
    llm: Serialized,
    prompts: string[],
    runId: string,
    parentRunId?: string,
    extraParams?: Dict,
    tags?: string[],
    metadata?: Dict,
    name?: string,
  ): TracedRun {
    return this.llmStart(llm, { prompts }, runId, parentRunId, extraParams, tags, metadata, name);
  }

  private llmStart(
    llm: Serialized,
    inputs: Dict,
    runId: string,
    parentRunId: string | undefined,
    extraParams: Dict | undefined,
    tags: string[] | undefined,
    metadata: Dict | undefined,
    name: string | undefined,
  ): TracedRun {
    return this.book.start({
      id: runId,
      parentRunId,
      name: name ?? lastId(llm),
      run_type: "llm",
      inputs,
      serialized: llm,
      tags: this.tagsFor(tags),
      metadata,
      inherited: this.tracingMetadata,
      extra: extraParams,
    });
  }

  _createRunForToolStart(
    tool: Serialized,
    input: unknown,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Dict,
    name?: string,
    toolCallId?: string,
  ): TracedRun {
    return this.book.start({
      id: runId,
      parentRunId,
      name: name ?? lastId(tool),
      run_type: "tool",
      inputs: typeof input === "string" ? { input } : input,
      serialized: tool,
      tags: this.tagsFor(tags),
      metadata,
      inherited: this.tracingMetadata,
      extra: toolCallId !== undefined ? { tool_call_id: toolCallId } : undefined,
    });
  }

  _createRunForRetrieverStart(
    retriever: Serialized,
    query: string,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Dict,
    name?: string,
  ): TracedRun {
    return this.book.start({
      id: runId,
      parentRunId,
      name: name ?? lastId(retriever),
      run_type: "retriever",
      inputs: { query },
      serialized: retriever,
      tags: this.tagsFor(tags),
      metadata,
      inherited: this.tracingMetadata,
      extra: undefined,
    });
  }

  // Started by the manager already (above); these cover a manager that does not call them.
  override handleChainStart(...args: Parameters<LeanTracer["_createRunForChainStart"]>): void {
    if (!this.book.get(args[2])) this._createRunForChainStart(...args);
  }
  override handleChatModelStart(...args: Parameters<LeanTracer["_createRunForChatModelStart"]>): void {
    if (!this.book.get(args[2])) this._createRunForChatModelStart(...args);
  }
  override handleLLMStart(...args: Parameters<LeanTracer["_createRunForLLMStart"]>): void {
    if (!this.book.get(args[2])) this._createRunForLLMStart(...args);
  }
  override handleToolStart(...args: Parameters<LeanTracer["_createRunForToolStart"]>): void {
    if (!this.book.get(args[2])) this._createRunForToolStart(...args);
  }
  override handleRetrieverStart(...args: Parameters<LeanTracer["_createRunForRetrieverStart"]>): void {
    if (!this.book.get(args[2])) this._createRunForRetrieverStart(...args);
  }

  // --- Ends and events --------------------------------------------------------------------

  private finish(run: TracedRun, event: "end" | "error"): void {
    const group = this.book.end(run, event);
    // Written on the next turn: the run's answer goes out first (the trace waits for its batch anyway).
    if (group) setImmediate(() => this.sink.send(encodeGroup(group, this.constants)));
  }

  override handleChainEnd(
    outputs: unknown,
    runId: string,
    _parent?: string,
    _tags?: string[],
    kwargs?: { inputs?: unknown },
  ): void {
    const run = this.book.get(runId);
    if (!run) return;
    run.outputs = coerceToDict(outputs, "output");
    if (kwargs?.inputs !== undefined) run.inputs = coerceToDict(kwargs.inputs, "input");
    this.finish(run, "end");
  }

  override handleChainError(
    error: unknown,
    runId: string,
    _parent?: string,
    _tags?: string[],
    kwargs?: { inputs?: unknown },
  ): void {
    const run = this.book.get(runId);
    if (!run) return;
    run.error = stringifyError(error);
    if (kwargs?.inputs !== undefined) run.inputs = coerceToDict(kwargs.inputs, "input");
    this.finish(run, "error");
  }

  override handleLLMEnd(
    output: unknown,
    runId: string,
    _parent?: string,
    _tags?: string[],
    extraParams?: Dict,
  ): void {
    const run = this.book.get(runId);
    if (run?.run_type !== "llm") return;
    run.outputs = output;
    if (extraParams) run.extra = { ...run.extra, ...extraParams };
    run.usage = usageOf(output);
    this.finish(run, "end");
  }

  override handleLLMError(
    error: unknown,
    runId: string,
    _parent?: string,
    _tags?: string[],
    extraParams?: Dict,
  ): void {
    const run = this.book.get(runId);
    if (run?.run_type !== "llm") return;
    run.error = stringifyError(error);
    if (extraParams) run.extra = { ...run.extra, ...extraParams };
    this.finish(run, "error");
  }

  override handleToolEnd(output: unknown, runId: string): void {
    this.ended(runId, "tool", { output });
  }

  override handleToolError(error: unknown, runId: string): void {
    this.failed(runId, "tool", error);
  }

  override handleRetrieverEnd(documents: unknown, runId: string): void {
    this.ended(runId, "retriever", { documents });
  }

  override handleRetrieverError(error: unknown, runId: string): void {
    this.failed(runId, "retriever", error);
  }

  /** A tool's or retriever's run (of that type: another handler's id is ignored) ends with `outputs`. */
  private ended(runId: string, type: "tool" | "retriever", outputs: Record<string, unknown>): void {
    const run = this.book.get(runId);
    if (run?.run_type !== type) return;
    run.outputs = outputs;
    this.finish(run, "end");
  }

  private failed(runId: string, type: "tool" | "retriever", error: unknown): void {
    const run = this.book.get(runId);
    if (run?.run_type !== type) return;
    run.error = stringifyError(error);
    this.finish(run, "error");
  }

  override handleLLMNewToken(_token: string, _idx: unknown, runId: string): void {
    const run = this.book.get(runId);
    if (run?.run_type !== "llm") return;
    // The SDK's client drops a token event's kwargs (the token, the chunk) before sending: so does
    // this tracer, and keeps no chunk meanwhile.
    this.book.event(run, "new_token");
  }

  override handleText(text: string, runId: string): void {
    const run = this.book.get(runId);
    if (run?.run_type !== "chain") return;
    this.book.event(run, "text", { text });
  }

  override handleAgentAction(action: unknown, runId: string): void {
    const run = this.book.get(runId);
    if (run?.run_type !== "chain") return;
    this.book.event(run, "agent_action", { action });
  }

  override handleAgentEnd(action: unknown, runId: string): void {
    const run = this.book.get(runId);
    if (run?.run_type !== "chain") return;
    this.book.event(run, "agent_end", { action });
  }
}
