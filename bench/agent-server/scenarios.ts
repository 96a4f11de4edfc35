import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import { closedLoop, type LoopLimits, type PhaseResult } from "./loops.js";
import type { StreamFigures } from "./results.js";
import { nowMs, summarize } from "./stats.js";
import { checkAnswer, type GraphId, runInput } from "./workload.js";

/**
 * One SDK client per simulated user: a shared Client would queue everything behind its default
 * maxConcurrency of 4. Retries are off so that a failed request is counted, not hidden.
 */
export function newClient(url: string): Client {
  return new Client({ apiUrl: url, apiKey: null, callerOptions: { maxRetries: 0 } });
}

/** Create a run on the thread, wait for it, and check it produced the expected answer. */
export async function createAndJoin(
  client: Client,
  graphId: GraphId,
  threadId: string,
  createThread: boolean,
): Promise<void> {
  const run = await client.runs.create(threadId, graphId, {
    input: runInput(),
    ...(createThread ? { ifNotExists: "create" as const } : {}),
  });
  checkAnswer(graphId, await client.runs.join(threadId, run.run_id));
}

const WARMUP_DEADLINE_MS = 60_000;

/**
 * Runs until `count` runs succeeded. Failures are tolerated for a while because the peer answers
 * /ok before its graphs are registered; a server that never manages a run fails the bench here.
 */
export async function warmUp(url: string, graphId: GraphId, count: number): Promise<void> {
  const client = newClient(url);
  const deadline = Date.now() + WARMUP_DEADLINE_MS;
  let done = 0;
  let lastError: unknown;
  while (done < count) {
    try {
      const thread = await client.threads.create();
      await createAndJoin(client, graphId, thread.thread_id, false);
      done += 1;
    } catch (error) {
      lastError = error;
      if (Date.now() > deadline) {
        throw new Error(
          `no successful ${graphId} run within ${WARMUP_DEADLINE_MS / 1000} s: ${String(lastError)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** Sequential create+join, each on a thread made just before (untimed). */
export function runLatency(
  url: string,
  graphId: GraphId,
  limits: LoopLimits,
  progress: (line: string) => void,
): Promise<PhaseResult> {
  return closedLoop({
    clients: 1,
    limits,
    setup: async () => newClient(url),
    prepare: async (client) => (await client.threads.create()).thread_id,
    measure: async (client, threadId) => {
      if (threadId === undefined) throw new Error("no thread prepared");
      await createAndJoin(client, graphId, threadId, false);
    },
    progress,
  });
}

/**
 * Sequential `runs.stream` with stream mode `values`, each on a thread made just before (untimed).
 * Three times per run, all from the call: first event (`metadata`), first `values` event, end of
 * the stream. A run counts only if its last `values` event holds the expected answer and no
 * `error` event came; its three times are kept together, so every figure covers the same runs.
 */
export async function runStream(
  url: string,
  graphId: GraphId,
  limits: LoopLimits,
  progress: (line: string) => void,
): Promise<StreamFigures> {
  const firstEvent: number[] = [];
  const firstValues: number[] = [];
  let events = 0;
  let notMetadataFirst = 0;
  const phase = await closedLoop({
    clients: 1,
    limits,
    setup: async () => newClient(url),
    prepare: async (client) => (await client.threads.create()).thread_id,
    measure: async (client, threadId) => {
      if (threadId === undefined) throw new Error("no thread prepared");
      // The SDK sends the request on the first next(): the clock starts before the call.
      const t0 = nowMs();
      let tFirst: number | undefined;
      let tValues: number | undefined;
      let first: string | undefined;
      let last: unknown;
      let count = 0;
      const stream = client.runs.stream(threadId, graphId, { input: runInput(), streamMode: "values" });
      for await (const chunk of stream) {
        const t = nowMs();
        const name: string = chunk.event;
        tFirst ??= t;
        first ??= name;
        count += 1;
        if (name === "error") throw new Error(`error event: ${JSON.stringify(chunk.data).slice(0, 200)}`);
        if (name === "values") {
          tValues ??= t;
          last = chunk.data;
        }
      }
      if (tFirst === undefined || tValues === undefined)
        throw new Error("stream ended without a values event");
      checkAnswer(graphId, last);
      firstEvent.push(tFirst - t0);
      firstValues.push(tValues - t0);
      events += count;
      if (first !== "metadata") notMetadataFirst += 1;
    },
    progress,
  });
  return {
    phase,
    firstEvent: summarize(firstEvent),
    firstValues: summarize(firstValues),
    eventsPerRun: events / Math.max(1, phase.completed),
    notMetadataFirst,
  };
}

interface LoopClient {
  client: Client;
  threadId: string;
  runsOnThread: number;
}

/**
 * Closed-loop clients, each on its own thread: create run, join, repeat. After `runsPerThread`
 * runs a client moves to a fresh thread, created by its next run (`if_not_exists: "create"`, no
 * extra request): the checkpointer stores the whole message list at every step, so a thread that
 * grew for the whole phase would measure history size rather than the server. The floor rotates
 * its threads the same way.
 */
export function runThroughput(
  url: string,
  graphId: GraphId,
  clients: number,
  runsPerThread: number,
  limits: LoopLimits,
  progress: (line: string) => void,
): Promise<PhaseResult> {
  return closedLoop<LoopClient, undefined>({
    clients,
    limits,
    setup: async () => ({ client: newClient(url), threadId: randomUUID(), runsOnThread: 0 }),
    measure: async (state) => {
      if (state.runsOnThread >= runsPerThread) {
        state.threadId = randomUUID();
        state.runsOnThread = 0;
      }
      const first = state.runsOnThread === 0;
      state.runsOnThread += 1;
      await createAndJoin(state.client, graphId, state.threadId, first);
    },
    progress,
  });
}

/** POST /threads from concurrent clients. */
export function runThreadCreate(
  url: string,
  clients: number,
  limits: LoopLimits,
  progress: (line: string) => void,
): Promise<PhaseResult> {
  return closedLoop({
    clients,
    limits,
    setup: async () => newClient(url),
    measure: async (client) => {
      await client.threads.create();
    },
    progress,
  });
}
