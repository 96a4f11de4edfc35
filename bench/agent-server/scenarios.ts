import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import autocannon from "autocannon";
import { type BenchClient, type BenchClients, benchClients, type ClientKind } from "./http-client.js";
import { closedLoop, type LoopLimits, type PhaseResult } from "./loops.js";
import type { StreamFigures } from "./results.js";
import { nowMs, summarize } from "./stats.js";
import { checkAnswer, type GraphId, runInput } from "./workload.js";

/**
 * An SDK client for the stream phase (one user, SSE parsing by the SDK). Retries are off so that a
 * failed request is counted, not hidden.
 */
export function newClient(url: string): Client {
  return new Client({ apiUrl: url, apiKey: null, callerOptions: { maxRetries: 0 } });
}

/** Create a run on the thread, wait for it, and check it produced the expected answer. */
export async function createAndJoin(
  client: BenchClient,
  graphId: GraphId,
  threadId: string,
  createThread: boolean,
): Promise<void> {
  const runId = await client.createRun(threadId, graphId, createThread);
  checkAnswer(graphId, await client.join(threadId, runId));
}

const WARMUP_DEADLINE_MS = 60_000;

/** `clients` users of one client kind through a closed loop, connections released at the end. */
async function withClients<R>(
  kind: ClientKind,
  url: string,
  users: number,
  body: (clients: BenchClients) => Promise<R>,
): Promise<R> {
  const clients = benchClients(kind, url, users);
  try {
    return await body(clients);
  } finally {
    await clients.close();
  }
}

/**
 * Runs until `count` runs succeeded. Failures are tolerated for a while because the peer answers
 * /ok before its graphs are registered; a server that never manages a run fails the bench here.
 */
export function warmUp(
  url: string,
  graphId: GraphId,
  count: number,
  kind: ClientKind = "http",
): Promise<void> {
  return withClients(kind, url, 1, async (clients) => {
    const client = clients.forUser(0);
    const deadline = Date.now() + WARMUP_DEADLINE_MS;
    let done = 0;
    let lastError: unknown;
    while (done < count) {
      try {
        await createAndJoin(client, graphId, await client.createThread(), false);
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
  });
}

/** Sequential create+join, each on a thread made just before (untimed). */
export function runLatency(
  url: string,
  graphId: GraphId,
  limits: LoopLimits,
  progress: (line: string) => void,
  kind: ClientKind = "http",
): Promise<PhaseResult> {
  return withClients(kind, url, 1, (clients) =>
    closedLoop({
      clients: 1,
      limits,
      setup: async () => clients.forUser(0),
      prepare: (client) => client.createThread(),
      measure: async (client, threadId) => {
        if (threadId === undefined) throw new Error("no thread prepared");
        await createAndJoin(client, graphId, threadId, false);
      },
      progress,
    }),
  );
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
  client: BenchClient;
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
/**
 * Brings a server to its steady state before it is measured: `clients` closed loops for `ms`,
 * results discarded. After a 300-run warm-up a Berth process still sped up from phase to phase
 * (echo, 64 clients, four 8 s loads back to back: 129, 173, 203, 214 runs/s) while V8 kept
 * optimising (411, 108, 52, 29 functions per load): a short warm-up measures the JIT, not the
 * server. Every server and the floor get the same.
 */
export async function warmUpUnderLoad(
  url: string,
  graphId: GraphId,
  clients: number,
  ms: number,
  kind: ClientKind = "http",
): Promise<void> {
  if (ms <= 0) return;
  await runThroughput(
    url,
    graphId,
    clients,
    10,
    { perClient: Number.MAX_SAFE_INTEGER, maxMs: ms },
    () => {},
    kind,
  );
}

export function runThroughput(
  url: string,
  graphId: GraphId,
  clients: number,
  runsPerThread: number,
  limits: LoopLimits,
  progress: (line: string) => void,
  kind: ClientKind = "http",
): Promise<PhaseResult> {
  return withClients(kind, url, clients, (users) =>
    closedLoop<LoopClient, undefined>({
      clients,
      limits,
      setup: async (index) => ({ client: users.forUser(index), threadId: randomUUID(), runsOnThread: 0 }),
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
    }),
  );
}

/** POST /threads from concurrent clients. */
/**
 * `POST /threads` from `clients` closed-loop connections until `limits.maxMs`. With the default
 * client kind the load comes from autocannon: a thread create costs the server about 0.1 ms, and a
 * general-purpose client on the same two cores costs as much or more (undici's `request` 70–220 µs
 * of CPU per create, autocannon 30–45 µs, measured against Berth), so this phase would measure the
 * client. `sdk` keeps the official SDK.
 */
export async function runThreadCreate(
  url: string,
  clients: number,
  limits: LoopLimits,
  progress: (line: string) => void,
  kind: ClientKind = "http",
): Promise<PhaseResult> {
  if (kind === "http") return threadCreateLoad(url, clients, limits.maxMs);
  return withClients(kind, url, clients, (users) =>
    closedLoop({
      clients,
      limits,
      setup: async (index) => users.forUser(index),
      measure: async (client) => {
        await client.createThread();
      },
      progress,
    }),
  );
}

async function threadCreateLoad(url: string, connections: number, maxMs: number): Promise<PhaseResult> {
  const result = await autocannon({
    url: `${url}/threads`,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
    connections,
    duration: Math.max(1, Math.round(maxMs / 1000)),
  });
  const completed = result["2xx"];
  const errors = result.non2xx + result.errors + result.timeouts;
  return {
    completed,
    errors,
    firstError:
      errors > 0
        ? `${result.non2xx} non-2xx responses, ${result.errors} errors, ${result.timeouts} timeouts`
        : null,
    seconds: result.duration,
    perSecond: completed / result.duration,
    latency: {
      count: completed,
      p50: result.latency.p50,
      p99: result.latency.p99,
      mean: result.latency.mean,
      max: result.latency.max,
    },
  };
}
