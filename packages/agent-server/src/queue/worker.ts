import type { RunnableConfig } from "@langchain/core/runnables";
import type { Logger } from "pino";
import type { AgentServerConfig } from "../config.js";
import type { WireJson } from "../domain/wire-json.js";
import type { EventLoopTurns } from "../execution/event-loop-turns.js";
import {
  executeRun,
  type RunEnvironment,
  runnableConfigFor,
  type ThreadAfterRun,
  threadAfterRun,
} from "../execution/run-graph.js";
import type { GraphRegistry } from "../graphs/registry.js";
import type { AgentServerMetrics } from "../metrics/registry.js";
import { toRunWire } from "../services/run-wire.js";
import type { CheckpointAdmin, ClaimedRun, RunCompletion, RunStore, ThreadStore } from "../storage/types.js";
import type { StreamBroker } from "../stream/types.js";
import type { WebhookSender } from "../webhooks/sender.js";
import type { NextRunHandoff } from "./pool.js";
import type { RunOutcome, RunSignals } from "./types.js";

/** Why a run's execution was stopped before the graph finished. */
export type StopReason = "cancel" | "timeout" | "shutdown" | "lease-lost";

/** What a worker needs; built once by the composition root. */
export interface WorkerDeps {
  runs: RunStore;
  threads: ThreadStore;
  checkpoints: CheckpointAdmin;
  registry: GraphRegistry;
  signals: RunSignals;
  broker: StreamBroker;
  config: AgentServerConfig;
  env: RunEnvironment;
  logger: Logger;
  webhooks: WebhookSender;
  metrics: AgentServerMetrics;
  turns: EventLoopTurns;
  /** Callbacks every run's config carries (the agent server's tracer), or undefined. */
  traceCallbacks?: readonly unknown[] | undefined;
  /** The thread values' JSON, messages memoised (one per process). */
  wire: WireJson;
}

/**
 * Executes one claimed run to a terminal status. Every write is fenced by the claim's token, so a
 * worker that lost its lease can never overwrite the attempt that replaced it.
 */
export async function processRun(
  claim: ClaimedRun,
  deps: WorkerDeps,
  controller: AbortController,
  next?: NextRunHandoff,
): Promise<void> {
  const { run, token } = claim;
  const { runs, signals, config, logger } = deps;
  const log = logger.child({ run_id: run.run_id, thread_id: run.thread_id, attempt: run.attempt });
  const stop = (reason: StopReason) => {
    if (!controller.signal.aborted) controller.abort(reason);
  };

  const unsubscribeCancel = signals.onCancel(run.run_id, () => stop("cancel"));
  // A cancel that reached an earlier attempt which died before honouring it: not run again.
  if (claim.cancelAction) stop("cancel");
  const heartbeat = setInterval(() => {
    runs.renewLease(run.run_id, token, config.leaseMs, Date.now()).then(
      (owned) => owned || stop("lease-lost"),
      (error: unknown) => log.warn({ err: error }, "lease renewal failed"),
    );
    // A cancel signal from another process can be lost (Redis down): the row says it too.
    runs.cancelAction(run.run_id).then(
      (action) => action && stop("cancel"),
      () => {},
    );
  }, config.heartbeatMs);
  const timeout = setTimeout(() => stop("timeout"), config.runTimeoutMs);

  let ended: RunOutcome | null = null;
  let withdrawExpectation: (() => void) | undefined;
  const startedAt = new Date().toISOString();
  deps.broker.open(run.run_id, { resumable: run.kwargs.resumable, executing: true });
  // The API sent attempt 1's metadata on acceptance; a re-attempt (after a crash) announces itself.
  if (run.attempt > 1)
    deps.broker.publish(run.run_id, "metadata", { run_id: run.run_id, attempt: run.attempt });
  try {
    // The graph's first step runs in promise callbacks alone (storage answers synchronously), so
    // without a turn of the event loop first the response of the request that created this run
    // in this process (a stream's headers and `metadata` event, a create's JSON) would only be
    // written once that step yields: first-event latency would include the step.
    await deps.turns.next();
    // A displacement recorded between the claim and the subscription above was signalled after
    // its commit: the signals keep a cancel nobody heard for the worker that subscribes next. When
    // the signal is lost (Redis down), the heartbeat's read of the row stops the run.
    const runConfig = runnableConfigFor(run, deps.env);
    // A list of its own per run: LangChain may extend the list it is given.
    if (deps.traceCallbacks) runConfig.callbacks = [...deps.traceCallbacks] as RunnableConfig["callbacks"];
    const graphId = String((run.kwargs.config.configurable as Record<string, unknown>).graph_id);
    const graph = await deps.registry.getGraph(graphId, runConfig);
    const threadState = (): Promise<ThreadAfterRun> => threadAfterRun(graph, run.thread_id, deps.wire);
    const settle = async () => deps.checkpoints.settle?.(run.thread_id);

    // A run whose input already reached a checkpoint resumes from there: applying the input again
    // would duplicate it, and finished supersteps are not executed twice. That is a re-attempt
    // after a crash, or a run a shutdown handed back (same attempt number) after some steps.
    // Read from the checkpoint's metadata alone: a full getState here (load, deserialise, plan the
    // next tasks) cost ~0.4 ms of CPU on every run to answer a question that is almost always no.
    // A run claimed as it was inserted has not run before (`fresh`): nothing to look for.
    // The PostgreSQL claim read it in the same statement (`latestCheckpointRunId`).
    const resume =
      !claim.fresh &&
      (claim.latestCheckpointRunId !== undefined
        ? claim.latestCheckpointRunId
        : await deps.checkpoints.latestRunId(run.thread_id)) === run.run_id;
    let completion: Omit<RunCompletion, "runId" | "token" | "thread"> & { thread: ThreadAfterRun | null };
    /** What waiters answer when it is not the thread's values (an interrupt: RunOutcome.resultJson). */
    let resultJson: string | undefined;
    // The run's first read of the thread may be answered from what this process holds (PostgreSQL).
    if (claim.latestCheckpoint !== undefined)
      withdrawExpectation = deps.checkpoints.expectLatest?.(run.thread_id, claim.latestCheckpoint);
    try {
      controller.signal.throwIfAborted();
      const result = await executeRun({
        graph,
        run,
        config: runConfig,
        signal: controller.signal,
        broker: deps.broker,
        turns: deps.turns,
        wire: deps.wire,
        resume,
      });
      await settle();
      completion = { status: "success", error: null, thread: result.thread };
      resultJson = result.resultJson;
    } catch (error) {
      // Whatever the end, the run's writes are committed (or failed) before it is reported.
      await settle().catch(() => {});
      const reason = controller.signal.aborted ? (controller.signal.reason as StopReason) : null;
      if (reason === "shutdown" || reason === "lease-lost") {
        log.info({ reason }, "run stopped; it goes back to the queue");
        return;
      }
      if (reason === "cancel") {
        const action = (await runs.cancelAction(run.run_id)) ?? "interrupt";
        if (action === "rollback") {
          await deps.checkpoints.deleteRunCheckpoints(run.thread_id, run.run_id);
          completion = { status: "interrupted", error: null, thread: await threadState(), deleteRun: true };
        } else {
          completion = { status: "interrupted", error: null, thread: await threadState() };
        }
      } else if (reason === "timeout") {
        const message = `Run exceeded its time limit of ${Math.round(config.runTimeoutMs / 1000)} s`;
        completion = {
          status: "timeout",
          error: { error: "TimeoutError", message },
          thread: await threadState(),
        };
      } else {
        const err = error instanceof Error ? error : new Error(String(error));
        log.warn({ err }, "run failed");
        completion = {
          status: "error",
          error: { error: err.name || "Error", message: err.message },
          thread: await threadState().catch(() => null),
        };
      }
    }
    if (completion.error) deps.broker.publish(run.run_id, "error", completion.error);
    const applied = await completeWithRetry(
      runs,
      run.thread_id,
      { runId: run.run_id, token, ...completion },
      log,
      next,
    );
    if (applied) {
      ended = {
        status: completion.deleteRun ? "deleted" : completion.status,
        valuesJson: completion.thread?.valuesJson ?? "null",
        ...(resultJson === undefined ? {} : { resultJson }),
        error: completion.error,
        ...(run.kwargs.temporary ? {} : { threadHoldsValues: true }),
      };
      if (run.kwargs.temporary) await deleteTemporaryThread(run.thread_id, deps);
    } else log.warn("run completion ignored: its lease was taken over");
  } catch (error) {
    // The graph could not even start (unknown graph, factory failure, storage error).
    const err = error instanceof Error ? error : new Error(String(error));
    log.error({ err }, "run could not be executed");
    const failure = { error: err.name || "Error", message: err.message };
    deps.broker.publish(run.run_id, "error", failure);
    const applied = await completeWithRetry(
      runs,
      run.thread_id,
      { runId: run.run_id, token, status: "error", error: failure, thread: null },
      log,
    );
    if (applied) ended = { status: "error", error: failure };
  } finally {
    // Not read (the run stopped first): withdrawn, so no later read of the thread relies on it.
    withdrawExpectation?.();
    clearInterval(heartbeat);
    clearTimeout(timeout);
    unsubscribeCancel();
    if (ended) {
      deps.metrics.runFinished(ended.status, (Date.now() - Date.parse(startedAt)) / 1000);
      deps.broker.end(run.run_id);
      signals.runEnded(run.run_id, ended);
      if (run.kwargs.webhook && ended.status !== "deleted") {
        deps.webhooks.send(run.kwargs.webhook, webhookPayload(run, ended, startedAt), { run_id: run.run_id });
      }
    }
  }
}

/** How long a worker keeps trying to record a run's end while the database is away. */
const COMPLETE_RETRY_MS = 5 * 60_000;

/**
 * Records a run's end, retrying while the database is unreachable (a restart): the run stays
 * this worker's meanwhile, and would otherwise be left `running` with nobody to reap it when this
 * is the only worker. False when the token is stale (another attempt took over) or time ran out.
 */
async function completeWithRetry(
  runs: RunStore,
  threadId: string,
  completion: RunCompletion,
  log: Logger,
  next?: NextRunHandoff,
): Promise<boolean> {
  const started = Date.now();
  let failed = false;
  for (let wait = 200; ; wait = Math.min(wait * 2, 5_000)) {
    try {
      const claimFor = next?.claimFor();
      let applied: boolean;
      if (!next || !claimFor) applied = await runs.complete(completion);
      else {
        // A busy queue: the run's end claims the next waiting run in the same transaction.
        const result = await runs.completeAndClaim(completion, claimFor);
        if (result.next) next.launch(result.next);
        applied = result.applied;
      }
      // An earlier try may have committed with its answer lost to the dropped connection: the run
      // then already ended as this attempt said, and its end must still be signalled. (A next run
      // that try claimed is reaped as this process's own orphan once its lease expires.)
      if (!applied && failed) return await endedAsSaid(runs, threadId, completion);
      return applied;
    } catch (error) {
      failed = true;
      if (Date.now() - started > COMPLETE_RETRY_MS) {
        log.error({ err: error }, "could not record the run's end; its lease will expire");
        return false;
      }
      log.warn({ error: (error as Error).message }, "could not record the run's end yet; retrying");
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** Whether the run's row shows the end `completion` records (a rollback's: the run is gone). */
async function endedAsSaid(runs: RunStore, threadId: string, completion: RunCompletion): Promise<boolean> {
  const row = await runs.get(threadId, completion.runId);
  return completion.deleteRun ? row === undefined : row?.status === completion.status;
}

/** What a webhook receives: the run as it ended, its timing, and the thread's values or the error. */
function webhookPayload(
  run: ClaimedRun["run"],
  outcome: RunOutcome,
  startedAt: string,
): Record<string, unknown> {
  const now = new Date().toISOString();
  return {
    ...toRunWire({
      ...run,
      status: outcome.status === "deleted" ? "interrupted" : outcome.status,
      updated_at: now,
    }),
    run_started_at: startedAt,
    run_ended_at: now,
    webhook_sent_at: now,
    values: outcome.valuesJson === undefined ? null : JSON.parse(outcome.valuesJson),
    ...(outcome.error ? { error: outcome.error.message } : {}),
  };
}

/** A stateless run's thread (and its checkpoints) go once the run has ended. */
async function deleteTemporaryThread(threadId: string, deps: WorkerDeps): Promise<void> {
  await deps.threads.delete(threadId);
  await deps.checkpoints.deleteThread(threadId);
}
