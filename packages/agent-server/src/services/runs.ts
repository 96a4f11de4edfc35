import type { MultitaskStrategy, Run, RunCreateStateful, RunStatus } from "@berth/schemas";
import { v7 as uuidv7 } from "uuid";
import { buildRunRecord, type RunCaller } from "../domain/run-record.js";
import { NotFoundError, ValidationError } from "../errors.js";
import type { GraphRegistry } from "../graphs/registry.js";
import { decideMultitask } from "../queue/multitask.js";
import type { RunSignals } from "../queue/types.js";
import type { RunRecord, RunStore, ThreadStore } from "../storage/types.js";
import type { AssistantService } from "./assistants.js";

/** The strategy a run gets when its request names none (docs/decisions.md). */
export const DEFAULT_MULTITASK_STRATEGY: MultitaskStrategy = "enqueue";

const JOIN_RECHECK_MS = 5_000;

const TERMINAL: ReadonlySet<RunStatus> = new Set(["success", "error", "timeout", "interrupted"]);

/** The wire form of a run: the record without the queue's bookkeeping. */
export function toRunWire(run: RunRecord): Run {
  return {
    run_id: run.run_id,
    thread_id: run.thread_id,
    assistant_id: run.assistant_id,
    created_at: run.created_at,
    updated_at: run.updated_at,
    status: run.status,
    metadata: run.metadata,
    kwargs: run.kwargs,
    multitask_strategy: run.multitask_strategy,
  };
}

/** Run use cases: create (with double-texting), read, list, join. */
export class RunService {
  constructor(
    private readonly deps: {
      runs: RunStore;
      threads: ThreadStore;
      assistants: AssistantService;
      registry: GraphRegistry;
      signals: RunSignals;
    },
  ) {}

  async createForThread(threadId: string, body: RunCreateStateful, caller: RunCaller): Promise<RunRecord> {
    const { runs, threads, signals, registry } = this.deps;
    const assistant = await this.deps.assistants.get(body.assistant_id);
    if (!registry.has(assistant.graph_id)) {
      throw new NotFoundError(
        `Graph ${assistant.graph_id} of assistant ${assistant.assistant_id} is not deployed here`,
      );
    }
    if (body.command && body.input !== undefined && body.input !== null) {
      throw new ValidationError("A run takes either input or command, not both");
    }
    const createThreadIfMissing = body.if_not_exists === "create";
    const thread = await threads.get(threadId);
    if (!thread && !createThreadIfMissing) throw new NotFoundError(`Thread with ID ${threadId} not found`);
    const run = buildRunRecord({
      runId: uuidv7(),
      threadId,
      assistant,
      threadConfig: thread?.config ?? {},
      body,
      caller,
      defaultStrategy: DEFAULT_MULTITASK_STRATEGY,
      temporary: false,
      nowMs: Date.now(),
    });
    const strategy = run.multitask_strategy;
    const result = await runs.create({
      run,
      createThreadIfMissing,
      threadMetadata: { graph_id: assistant.graph_id, assistant_id: assistant.assistant_id },
      decide: (active) => decideMultitask(strategy, active),
    });
    for (const displaced of result.displaced) {
      if (displaced.status === "running") signals.cancel(displaced.run_id);
      else signals.runEnded(displaced.run_id, displaced.action === "rollback" ? "deleted" : "interrupted");
    }
    signals.ringDoorbell();
    return result.run;
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

  /**
   * Waits for the run to end (woken by the worker's signal, no polling) and returns the thread's
   * values. `signal` aborts the wait when the client goes away.
   */
  async join(threadId: string, runId: string, signal: AbortSignal): Promise<unknown> {
    const { runs, signals, threads } = this.deps;
    let unsubscribe: (() => void) | undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      const ended = new Promise<void>((resolve) => {
        unsubscribe = signals.onRunEnded(runId, () => resolve());
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
      for (let first = true; ; first = false) {
        const run = await runs.get(threadId, runId);
        if (!run && first) throw new NotFoundError(`Run ${runId} not found`);
        if (!run || TERMINAL.has(run.status) || signal.aborted) break;
        // The signal ends the wait at once; the re-check only covers a signal lost between processes.
        await Promise.race([ended, new Promise((resolve) => (timer = setTimeout(resolve, JOIN_RECHECK_MS)))]);
        clearTimeout(timer);
      }
    } finally {
      clearTimeout(timer);
      unsubscribe?.();
    }
    const thread = await threads.get(threadId);
    return thread?.values ?? null;
  }
}
