import type {
  JsonObject,
  MultitaskStrategy,
  Run,
  RunCreateStateful,
  RunCreateStateless,
  RunStatus,
} from "@berth-platform/schemas";
import { v7 as uuidv7 } from "uuid";
import { mirrorContext } from "../domain/context-mirror.js";
import { buildRunRecord, type RunCaller, threadConfigAfterRun } from "../domain/run-record.js";
import { resultFromOutcome } from "../domain/run-result.js";
import { ConflictError, NotFoundError, ValidationError } from "../errors.js";
import type { GraphRegistry } from "../graphs/registry.js";
import { decideMultitask } from "../queue/multitask.js";
import type { SlotReservation } from "../queue/pool.js";
import type { RunOutcome, RunSignals } from "../queue/types.js";
import { StaleReadsError } from "../storage/stale-reads.js";
import type { CreateRunResult, RunRecord, RunStore, ThreadStore } from "../storage/types.js";
import type { StreamBroker } from "../stream/types.js";
import type { AddressPolicy } from "../webhooks/address-policy.js";
import type { AssistantService } from "./assistants.js";
import { CreateReadsCache, expectedReads } from "./create-reads.js";
import { toRunWire } from "./run-wire.js";

/** The strategy a run gets when its request names none (docs/decisions.md). */
export const DEFAULT_MULTITASK_STRATEGY: MultitaskStrategy = "enqueue";

const JOIN_RECHECK_MS = 5_000;

const TERMINAL: ReadonlySet<RunStatus> = new Set(["success", "error", "timeout", "interrupted"]);

/** Hooks a caller runs between the insert and the doorbell (so it cannot miss the run's first event). */
export interface CreateHooks {
  onCreated?: (run: RunRecord) => void;
}

/** Run use cases: create (with double-texting), read, list, join, cancel, delete. */
export class RunService {
  /** Kept rows runs are built from, where the store checks them (`RunStore.checksCreateReads`). */
  private readonly readsCache: CreateReadsCache | undefined;

  constructor(
    private readonly deps: {
      runs: RunStore;
      threads: ThreadStore;
      assistants: AssistantService;
      registry: GraphRegistry;
      signals: RunSignals;
      broker: StreamBroker;
      webhookPolicy: AddressPolicy;
      /** A slot of this process's run queue, when it executes runs and has room (RunQueue.reserveSlot). */
      reserveSlot?: (() => SlotReservation | undefined) | undefined;
      /** The thread of a run this process is executing (RunQueue.threadOfRunning). */
      threadOfRunning?: ((runId: string) => string | undefined) | undefined;
    },
  ) {
    this.readsCache = deps.runs.checksCreateReads ? new CreateReadsCache() : undefined;
  }

  async createForThread(
    threadId: string,
    body: RunCreateStateful,
    caller: RunCaller,
    hooks: CreateHooks = {},
  ): Promise<RunRecord> {
    return this.create(
      threadId,
      body,
      caller,
      { temporary: false, createThread: body.if_not_exists === "create" },
      hooks,
    );
  }

  /** A run on a new temporary thread, deleted after the run unless `on_completion` is `keep`. */
  createStateless(body: RunCreateStateless, caller: RunCaller, hooks: CreateHooks = {}): Promise<RunRecord> {
    const { on_completion, ...rest } = body;
    return this.create(
      uuidv7(),
      { ...rest, multitask_strategy: null, if_not_exists: "create" },
      caller,
      { temporary: (on_completion ?? "delete") === "delete", createThread: true },
      hooks,
    );
  }

  private async create(
    threadId: string,
    body: RunCreateStateful,
    caller: RunCaller,
    options: { temporary: boolean; createThread: boolean },
    hooks: CreateHooks,
  ): Promise<RunRecord> {
    const { signals, broker } = this.deps;
    const cache = this.readsCache;
    let created: Awaited<ReturnType<RunService["insert"]>>;
    try {
      created = await this.insert(threadId, body, caller, options, cache);
    } catch (error) {
      // Built from kept rows another process changed since: nothing was written; read them again.
      if (!(error instanceof StaleReadsError) || !cache) throw error;
      cache.forget(body.assistant_id, threadId);
      created = await this.insert(threadId, body, caller, options, undefined);
    }
    const { result, slot } = created;
    for (const displaced of result.displaced) {
      if (displaced.status === "running") signals.cancel(displaced.run_id);
      else this.ended(displaced.run_id, displaced.action === "rollback" ? "deleted" : "interrupted");
    }
    broker.open(result.run.run_id, { resumable: result.run.kwargs.resumable });
    hooks.onCreated?.(result.run);
    // The first event goes out on acceptance, whichever worker picks the run up and whenever.
    broker.publish(result.run.run_id, "metadata", { run_id: result.run.run_id, attempt: 1 });
    if (result.claim && slot) {
      slot.launch(result.claim);
    } else {
      slot?.cancel();
      signals.ringDoorbell();
    }
    return result.run;
  }

  /**
   * Reads what the run is built from (from `cache` when it holds it: the store checks those), builds
   * the run and inserts it; the slot it reserved, to launch or give back.
   */
  private async insert(
    threadId: string,
    body: RunCreateStateful,
    caller: RunCaller,
    options: { temporary: boolean; createThread: boolean },
    cache: CreateReadsCache | undefined,
  ): Promise<{ result: CreateRunResult; slot: SlotReservation | undefined }> {
    const { runs, threads, registry } = this.deps;
    const keptAssistant = cache?.assistant(body.assistant_id);
    const assistant = keptAssistant ?? (await this.deps.assistants.forRun(body.assistant_id));
    const failure = registry.failure(assistant.graph_id);
    if (failure) throw new ValidationError(`The graph of this assistant did not load. ${failure}`);
    if (!registry.has(assistant.graph_id)) {
      throw new NotFoundError(
        `Graph ${assistant.graph_id} of assistant ${assistant.assistant_id} is not deployed here`,
      );
    }
    if (body.command && body.input !== undefined && body.input !== null) {
      throw new ValidationError("A run takes either input or command, not both");
    }
    const refusal = body.webhook ? this.deps.webhookPolicy.refuseUrl(body.webhook) : null;
    if (refusal) throw new ValidationError(`The webhook URL is refused: ${refusal}`);
    // Read even when it may be created (`if_not_exists: create`): an existing thread's config counts.
    const keptConfig = cache?.threadConfig(threadId);
    const configJson = keptConfig ?? (await threads.configJson(threadId));
    if (configJson === undefined && !options.createThread)
      throw new NotFoundError(`Thread with ID ${threadId} not found`);
    const threadConfig = (configJson === undefined ? {} : JSON.parse(configJson)) as JsonObject;
    // `context` and `config.configurable` kept in step, as the official server keeps them.
    const request = mirrorContext(body);
    const run = buildRunRecord({
      runId: uuidv7(),
      threadId,
      assistant,
      threadConfig,
      body: request,
      caller,
      defaultStrategy: DEFAULT_MULTITASK_STRATEGY,
      temporary: options.temporary,
      nowMs: Date.now(),
    });
    const strategy = run.multitask_strategy;
    const expected = cache
      ? expectedReads(assistant, { assistant: keptAssistant !== undefined, threadConfigJson: keptConfig })
      : undefined;
    const slot = this.deps.reserveSlot?.();
    let result: CreateRunResult;
    try {
      result = await runs.create({
        run,
        createThreadIfMissing: options.createThread,
        threadMetadata: { graph_id: assistant.graph_id, assistant_id: assistant.assistant_id },
        threadConfig: threadConfigAfterRun(assistant, threadConfig, request.config),
        decide: (active) => decideMultitask(strategy, active),
        ...(slot ? { claimFor: { owner: slot.owner, leaseMs: slot.leaseMs, nowMs: Date.now() } } : {}),
        ...(expected ? { expected } : {}),
      });
    } catch (error) {
      slot?.cancel();
      throw error;
    }
    if (cache) {
      if (!keptAssistant) cache.rememberAssistant(body.assistant_id, assistant);
      // What the thread's config is now, when the store knows it (its one-statement create).
      if (result.threadConfigJson !== undefined)
        cache.rememberThreadConfig(threadId, result.threadConfigJson);
      else cache.forgetThread(threadId);
    }
    return { result, slot };
  }

  /** A run that ended without executing (cancelled or displaced while pending). */
  private ended(runId: string, status: RunOutcome["status"]): void {
    this.deps.broker.end(runId);
    this.deps.signals.runEnded(runId, { status });
  }

  async get(threadId: string, runId: string): Promise<RunRecord> {
    const run = await this.deps.runs.get(threadId, runId);
    if (!run) throw new NotFoundError(`Run ${runId} not found`);
    return run;
  }

  async list(
    threadId: string,
    options: { limit: number; offset: number; status?: RunStatus | undefined },
  ): Promise<RunRecord[]> {
    if (!(await this.deps.threads.get(threadId)))
      throw new NotFoundError(`Thread with ID ${threadId} not found`);
    return this.deps.runs.list(threadId, options);
  }

  /** The wire form of a run. */
  toWire(run: RunRecord): Run {
    return toRunWire(run);
  }

  /** Whether a run has reached a terminal status (or no longer exists). */
  async isOver(threadId: string, runId: string): Promise<boolean> {
    const run = await this.deps.runs.get(threadId, runId);
    return !run || TERMINAL.has(run.status);
  }

  /**
   * Waits for the run to end (woken by the worker's signal, no polling) and returns what a join
   * answers as JSON text (domain/run-result.ts: `{__error__}`, `{__interrupt__}` or the thread's
   * values, "null" when none). `signal` aborts the wait when the client goes away.
   */
  async join(threadId: string, runId: string, signal: AbortSignal): Promise<string> {
    // A run that had ended when the wait began brings its answer with its status.
    let resultJson: string | undefined;
    const exists = await this.waitUntilOver(
      threadId,
      runId,
      signal,
      async () => {
        const state = await this.deps.runs.joinState(threadId, runId);
        resultJson = state?.resultJson;
        return state?.status;
      },
      (outcome) => {
        // Ended in this process: the signal holds what the run's end stored in its thread (one read
        // per run fewer). From another process the values are left out (`withoutStoredValues`).
        resultJson = resultFromOutcome(outcome);
      },
    );
    if (!exists) throw new NotFoundError(`Run ${runId} not found`);
    return resultJson ?? this.endedResult(threadId, runId);
  }

  /** What a join answers for an ended run, from the database (a deleted run: its thread's values). */
  async endedResult(threadId: string, runId: string): Promise<string> {
    return (
      (await this.deps.runs.joinState(threadId, runId))?.resultJson ?? this.deps.threads.valuesJson(threadId)
    );
  }

  /**
   * Resolves once the run is terminal or gone (or `signal` aborts); false when it did not exist
   * when the wait began. One read of the run: the end signal is sent only after the run's end was
   * committed, so it is trusted; the row is read again only if no signal came for a while.
   */
  async waitUntilOver(
    threadId: string,
    runId: string,
    signal: AbortSignal,
    readStatus: () => Promise<RunStatus | undefined> = async () =>
      (await this.deps.runs.get(threadId, runId))?.status,
    onEnded?: (outcome: RunOutcome) => void,
  ): Promise<boolean> {
    const { signals } = this.deps;
    let unsubscribe: (() => void) | undefined;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    let endSignalled = false;
    try {
      // Subscribed before the read, so an end committed right after it is not missed.
      const ended = new Promise<void>((resolve) => {
        unsubscribe = signals.onRunEnded(runId, (outcome) => {
          endSignalled = true;
          onEnded?.(outcome);
          resolve();
        });
        onAbort = () => resolve();
        signal.addEventListener("abort", onAbort, { once: true });
      });
      // Executing here: running until its end is signalled in this process (subscribed above), so
      // the database need not be asked (a round trip per join on PostgreSQL).
      const status =
        this.deps.threadOfRunning?.(runId) === threadId ? ("running" as const) : await readStatus();
      if (!status) return false;
      if (TERMINAL.has(status)) return true;
      while (!signal.aborted && !endSignalled) {
        // The re-check only covers a signal lost between processes.
        await Promise.race([ended, new Promise((resolve) => (timer = setTimeout(resolve, JOIN_RECHECK_MS)))]);
        clearTimeout(timer);
        if (!endSignalled && !signal.aborted && (await this.isOver(threadId, runId))) break;
      }
      return true;
    } finally {
      clearTimeout(timer);
      unsubscribe?.();
      if (onAbort) signal.removeEventListener("abort", onAbort);
    }
  }

  /** Cancels runs of a thread; with `wait`, returns once they have ended. */
  async cancel(
    threadId: string,
    runIds: string[],
    options: { action: "interrupt" | "rollback"; wait: boolean; signal: AbortSignal },
  ): Promise<void> {
    const results = await this.deps.runs.cancel(threadId, runIds, options.action);
    for (const result of results) {
      if (result.outcome === "ended")
        this.ended(result.run_id, options.action === "rollback" ? "deleted" : "interrupted");
      else this.deps.signals.cancel(result.run_id);
    }
    if (options.wait) {
      await Promise.all(results.map((r) => this.waitUntilOver(threadId, r.run_id, options.signal)));
    }
  }

  /** Deletes a finished run; an active one must be cancelled first (409). */
  async delete(threadId: string, runId: string): Promise<void> {
    const outcome = await this.deps.runs.delete(threadId, runId);
    if (outcome === "missing") throw new NotFoundError(`Run ${runId} not found`);
    if (outcome === "active")
      throw new ConflictError(`Run ${runId} is still active; cancel it before deleting it`);
  }
}
