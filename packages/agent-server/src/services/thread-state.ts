import type { Superstep } from "@berth-platform/schemas";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { StateSnapshot } from "@langchain/langgraph";
import { toWire } from "../domain/serialize.js";
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from "../errors.js";
import { toCommand, toLangGraphConfig } from "../execution/run-graph.js";
import { emptyThreadState, interruptsByTask, toThreadState } from "../execution/state.js";
import type { GraphRegistry, RunnableGraph } from "../graphs/registry.js";
import type { ThreadStore } from "../storage/types.js";

/** A checkpoint as the API names it. */
export interface CheckpointName {
  checkpoint_id?: string | null | undefined;
  checkpoint_ns?: string | null | undefined;
  checkpoint_map?: Record<string, unknown> | null | undefined;
}

function checkpointConfig(threadId: string, checkpoint?: CheckpointName | null): RunnableConfig {
  const configurable: Record<string, unknown> = { thread_id: threadId };
  if (checkpoint?.checkpoint_id) configurable.checkpoint_id = checkpoint.checkpoint_id;
  if (checkpoint?.checkpoint_ns) configurable.checkpoint_ns = checkpoint.checkpoint_ns;
  if (checkpoint?.checkpoint_map) configurable.checkpoint_map = checkpoint.checkpoint_map;
  return { configurable };
}

/** Thread state use cases that go through the thread's graph: read, history, update. */
export class ThreadStateService {
  constructor(
    private readonly threads: ThreadStore,
    private readonly registry: GraphRegistry,
  ) {}

  /**
   * The graph a thread runs (bound at its first run), or undefined before that. A factory graph is
   * built with the thread's config (the one its runs recorded), as the official servers do.
   */
  private async graphOf(threadId: string): Promise<RunnableGraph | undefined> {
    const thread = await this.threads.get(threadId);
    if (!thread) throw new NotFoundError(`Thread with ID ${threadId} not found`);
    const graphId = thread.metadata.graph_id;
    if (typeof graphId !== "string" || !this.registry.has(graphId)) return undefined;
    const config = thread.config;
    const configurable = {
      ...(config.configurable as Record<string, unknown> | undefined),
      thread_id: threadId,
    };
    return this.registry.getGraph(graphId, { ...toLangGraphConfig(config), configurable });
  }

  /**
   * The state at the latest checkpoint, or at the one named; with `subgraphs`, the tasks running a
   * subgraph carry its state (recursively), as the official servers give it.
   */
  async get(
    threadId: string,
    checkpoint?: CheckpointName | null,
    options: { subgraphs?: boolean | null | undefined } = {},
  ): Promise<Record<string, unknown>> {
    const graph = await this.graphOf(threadId);
    if (!graph) return emptyThreadState(threadId);
    const snapshot = await graph.getState(checkpointConfig(threadId, checkpoint), {
      subgraphs: options.subgraphs ?? false,
    });
    if (!snapshot.config?.configurable?.checkpoint_id) {
      if (checkpoint?.checkpoint_id)
        throw new NotFoundError(`Checkpoint ${checkpoint.checkpoint_id} not found`);
      return emptyThreadState(threadId);
    }
    return toThreadState(graph, snapshot);
  }

  /** Past states, newest first, optionally before a checkpoint and filtered by checkpoint metadata. */
  async history(
    threadId: string,
    options: {
      limit: number;
      before?: CheckpointName | null;
      metadata?: Record<string, unknown> | null;
      checkpoint?: CheckpointName | null;
    },
  ): Promise<Record<string, unknown>[]> {
    const graph = await this.graphOf(threadId);
    if (!graph) return [];
    const snapshots: StateSnapshot[] = [];
    // One more than asked, so the last state's `writes` can come from its parent.
    for await (const snapshot of graph.getStateHistory(checkpointConfig(threadId, options.checkpoint), {
      limit: options.limit + 1,
      ...(options.before?.checkpoint_id ? { before: checkpointConfig(threadId, options.before) } : {}),
      ...(options.metadata ? { filter: options.metadata } : {}),
    })) {
      snapshots.push(snapshot);
    }
    const filtered = Boolean(options.metadata);
    const states: Record<string, unknown>[] = [];
    for (let i = 0; i < Math.min(options.limit, snapshots.length); i += 1) {
      const snapshot = snapshots[i] as StateSnapshot;
      const next = snapshots[i + 1];
      const parentId = snapshot.parentConfig?.configurable?.checkpoint_id;
      // The next item is the parent unless a metadata filter skipped some; then it is looked up.
      const parent = !parentId
        ? null
        : !filtered && next?.config.configurable?.checkpoint_id === parentId
          ? next
          : undefined;
      states.push(await toThreadState(graph, snapshot, parent));
    }
    return states;
  }

  /**
   * Builds a history from supersteps, as the official servers do for `POST /threads` with
   * `supersteps`: each superstep's updates are applied together (each as its `as_node`, a `command`
   * as LangGraph's Command), one checkpoint per superstep, through the thread's graph.
   */
  async applySupersteps(threadId: string, supersteps: readonly Superstep[]): Promise<void> {
    const graph = await this.graphOf(threadId);
    if (!graph) {
      throw new ValidationError(
        `Thread ${threadId} has no graph ID: supersteps need metadata.graph_id naming a graph of the project`,
      );
    }
    if ((await this.threads.activeRunIds(threadId)).length > 0) {
      throw new ConflictError(`Thread ${threadId} is busy: a run is pending or running`);
    }
    await graph
      .bulkUpdateState(
        { configurable: { thread_id: threadId, checkpoint_ns: "" } },
        supersteps.map((step) => ({
          updates: step.updates.map((u) => ({ values: toCommand(u.command) ?? u.values, asNode: u.as_node })),
        })),
      )
      .catch((error: unknown) => {
        throw invalidUpdate(error) ?? error;
      });
    await this.recordState(graph, threadId);
  }

  /** The thread record's values, interrupts and status from its latest checkpoint. */
  private async recordState(graph: RunnableGraph, threadId: string): Promise<void> {
    const snapshot = await graph.getState({ configurable: { thread_id: threadId } });
    await this.threads.setState(threadId, {
      values: toWire(snapshot.values) ?? null,
      interrupts: interruptsByTask(snapshot),
      hasNext: snapshot.next.length > 0,
    });
  }

  /** Writes values as if `asNode` had returned them (forking from a checkpoint when one is named). */
  async update(
    threadId: string,
    body: {
      values?: unknown;
      as_node?: string | null | undefined;
      checkpoint?: CheckpointName | null | undefined;
      checkpoint_id?: string | null | undefined;
    },
  ): Promise<{
    checkpoint: Record<string, unknown>;
    configurable: Record<string, unknown>;
    checkpoint_id: unknown;
  }> {
    const graph = await this.graphOf(threadId);
    if (!graph) {
      // 400, as the official server answers: nothing in the request could make it right.
      throw new BadRequestError(
        `Thread ${threadId} has no graph yet: run it once (or set its metadata's graph_id) before updating its state`,
      );
    }
    if ((await this.threads.activeRunIds(threadId)).length > 0) {
      throw new ConflictError(`Thread ${threadId} is busy: a run is pending or running`);
    }
    const target = body.checkpoint ?? (body.checkpoint_id ? { checkpoint_id: body.checkpoint_id } : null);
    const config = await graph
      .updateState(checkpointConfig(threadId, target), body.values ?? null, body.as_node ?? undefined)
      .catch((error: unknown) => {
        throw invalidUpdate(error) ?? error;
      });
    await this.recordState(graph, threadId);
    const c = config.configurable ?? {};
    const checkpoint = {
      thread_id: threadId,
      checkpoint_ns: c.checkpoint_ns ?? "",
      checkpoint_id: c.checkpoint_id ?? null,
      checkpoint_map: c.checkpoint_map ?? null,
    };
    // The official server adds the older names beside `checkpoint`: the SDK's type still reads
    // `configurable`, and older clients `checkpoint_id`.
    return { checkpoint, configurable: checkpoint, checkpoint_id: checkpoint.checkpoint_id };
  }
}

/**
 * LangGraph's refusals of an update that the request caused (an unknown `as_node`, values a channel
 * cannot take, messages that are not messages) as a 422; judged by name and LangChain error code,
 * since the graph may run on the project's own copy of LangGraph (other classes than Berth's).
 */
function invalidUpdate(error: unknown): ValidationError | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { lc_error_code?: unknown }).lc_error_code;
  const byRequest =
    error.name === "InvalidUpdateError" ||
    error.name === "EmptyInputError" ||
    code === "INVALID_GRAPH_NODE_RETURN_VALUE" ||
    code === "INVALID_CONCURRENT_GRAPH_UPDATE" ||
    code === "MESSAGE_COERCION_FAILURE" ||
    /MESSAGE_COERCION_FAILURE|Unable to coerce message/.test(error.message);
  return byRequest ? new ValidationError(`Invalid state update: ${error.message.split("\n")[0]}`) : undefined;
}
