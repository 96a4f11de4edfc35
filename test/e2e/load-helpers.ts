// Helpers shared by the tests that spread runs over several server processes (the embedded
import assert from "node:assert/strict";
// cluster, two agent servers on one data directory, the PostgreSQL + Redis cluster).
import type { Client } from "@langchain/langgraph-sdk";

/** Runs `task` over `items` with at most `limit` at a time; results in order. */
export async function mapLimit<T, R>(items: T[], limit: number, task: (item: T, i: number) => Promise<R>) {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      for (let i = next++; i < items.length; i = next++) results[i] = await task(items[i] as T, i);
    }),
  );
  return results;
}

/**
 * Creates `runsPerThread` enqueued echo runs on each thread, the creates dealt round-robin over
 * `clients` (so consecutive runs of a thread go to different processes); returns each thread's
 * run ids in creation order.
 */
export async function enqueueRoundRobin(
  clients: Client[],
  threadIds: string[],
  runsPerThread: number,
  concurrency: number,
): Promise<string[][]> {
  let created = 0;
  return mapLimit(threadIds, concurrency, async (threadId, t) => {
    const ids: string[] = [];
    for (let i = 0; i < runsPerThread; i++) {
      const client = clients[created++ % clients.length] as Client;
      const run = await client.runs.create(threadId, "echo", {
        input: { messages: [{ role: "user", content: `t${t}-r${i}` }] },
        multitaskStrategy: "enqueue",
      });
      ids.push(run.run_id);
    }
    return ids;
  });
}

/** Joins every run, each through a different client than the one before it. */
export async function joinAll(
  clients: Client[],
  threadIds: string[],
  runIds: string[][],
  concurrency: number,
): Promise<void> {
  await mapLimit(threadIds, concurrency, async (threadId, t) => {
    for (const [i, runId] of (runIds[t] ?? []).entries())
      await (clients[(t + i + 1) % clients.length] as Client).runs.join(threadId, runId);
  });
}

export interface StreamFrame {
  id: string | undefined;
  event: string;
  data: unknown;
}

/** Reads a joined stream until `stopAfter` frames (then drops it) or its end. */
export async function readStream(
  client: Client,
  threadId: string,
  runId: string,
  options: { lastEventId?: string | undefined; stopAfter?: number },
): Promise<StreamFrame[]> {
  const frames: StreamFrame[] = [];
  const abort = new AbortController();
  try {
    for await (const frame of client.runs.joinStream(threadId, runId, {
      signal: abort.signal,
      ...(options.lastEventId !== undefined ? { lastEventId: options.lastEventId } : {}),
    })) {
      // The SDK also yields the server's heartbeat comments, as nameless events: not events.
      if (frame.event === "") continue;
      frames.push({ id: frame.id, event: frame.event, data: frame.data });
      if (options.stopAfter !== undefined && frames.length >= options.stopAfter) {
        abort.abort();
        break;
      }
    }
  } catch (error) {
    if (!abort.signal.aborted) throw error;
  }
  return frames;
}

/** Creates `count` threads, dealt round-robin over `clients`; returns their ids in order. */
export async function createThreads(
  clients: Client[],
  count: number,
  concurrency: number,
): Promise<string[]> {
  const threads = await mapLimit(
    Array.from({ length: count }, (_, t) => t),
    concurrency,
    (t) => (clients[t % clients.length] as Client).threads.create({ metadata: { t } }),
  );
  return threads.map((thread) => thread.thread_id);
}

/** Threads with more than one running run; the alias keeps the query valid on PostgreSQL too. */
export const OVERLAPPING_THREADS_SQL =
  "select count(*) as n from (select thread_id from runs where status = 'running' group by thread_id having count(*) > 1) x";

/**
 * Samples `overlaps` (threads with two running runs at this instant) every `intervalMs` while a
 * load runs; `stop()` ends the sampling and returns the sum (0 when the guarantee held).
 */
export function sampleOverlaps(
  overlaps: () => number | Promise<number>,
  intervalMs: number,
): { stop(): Promise<number> } {
  let total = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      total += await overlaps();
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      sampling = false;
      await sampler;
      return total;
    },
  };
}

/**
 * Asserts that each thread's human messages are its runs' inputs (`t<thread>-r<run>`, as
 * `enqueueRoundRobin` sends them), each once and in creation order; states are read through
 * `clients` in turn, so every process answers some.
 */
export async function assertRunsInOrder(
  clients: Client[],
  threadIds: string[],
  runsPerThread: number,
  concurrency: number,
): Promise<void> {
  await mapLimit(threadIds, concurrency, async (threadId, t) => {
    const state = await (clients[(t + 1) % clients.length] as Client).threads.getState<{
      messages: Array<{ type: string; content: string }>;
    }>(threadId);
    const human = state.values.messages.filter((m) => m.type === "human").map((m) => m.content);
    assert.deepEqual(
      human,
      Array.from({ length: runsPerThread }, (_, i) => `t${t}-r${i}`),
      `thread ${t}: every run once, in creation order`,
    );
    // One answer per run: a run executed twice would leave a second answer.
    assert.equal(state.values.messages.length, 2 * runsPerThread, `thread ${t}: one answer per run`);
  });
}
