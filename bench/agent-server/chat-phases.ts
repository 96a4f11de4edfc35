// The chat workload (issue 31): each simulated user keeps one thread and every run appends to it,
// as a chat does, so the state grows with every turn (echo: +2 messages a turn, agent: +4).
import { type BenchClient, benchClients, type ClientKind } from "./http-client.js";
import { closedLoop, type LoopLimits, type PhaseResult } from "./loops.js";
import type { RunningServer } from "./servers.js";
import { type LatencySummary, nowMs, summarize } from "./stats.js";
import { checkAnswer, type GraphId } from "./workload.js";

/** One turn of a chat: a run on the user's thread (no `if_not_exists`), joined, answer checked. */
async function turn(client: BenchClient, graphId: GraphId, threadId: string): Promise<void> {
  const runId = await client.createRun(threadId, graphId, false);
  checkAnswer(graphId, await client.join(threadId, runId));
}

export interface ChatLoad {
  phase: PhaseResult;
  /** Server CPU (user + system of its whole process group) per completed run, ms. */
  cpuMsPerRun: number | undefined;
  /** Turns the threads had reached at the end of the phase (mean over the users). */
  meanTurns: number;
}

/**
 * `clients` closed-loop users, each on its own thread (created untimed before the clock starts),
 * one turn after another until `limits`. Every phase starts from fresh threads, so each server's
 * threads grow from turn 1; a faster server reaches longer threads in the same time, which counts
 * against it, as it would for a real chat.
 */
export async function chatThroughput(
  server: RunningServer,
  graphId: GraphId,
  clients: number,
  limits: LoopLimits,
  kind: ClientKind,
): Promise<ChatLoad> {
  const users = benchClients(kind, server.url, clients);
  const states: Array<{ client: BenchClient; threadId: string; turns: number }> = [];
  try {
    let cpu0: number | undefined;
    const phase = await closedLoop({
      clients,
      limits,
      setup: async (index) => {
        const client = users.forUser(index);
        const state = { client, threadId: await client.createThread(), turns: 0 };
        states.push(state);
        // The last user's thread is the last untimed request: the CPU window starts with the loop.
        if (states.length === clients) cpu0 = server.cpuMs();
        return state;
      },
      measure: async (state) => {
        await turn(state.client, graphId, state.threadId);
        state.turns += 1;
      },
    });
    const cpu1 = server.cpuMs();
    return {
      phase,
      cpuMsPerRun:
        cpu0 === undefined || cpu1 === undefined ? undefined : (cpu1 - cpu0) / Math.max(1, phase.completed),
      meanTurns: states.reduce((sum, s) => sum + s.turns, 0) / Math.max(1, states.length),
    };
  } finally {
    await users.close();
  }
}

export interface TurnCost {
  turn: number;
  /** Server CPU per run over the runs of this turn (all threads), ms. */
  cpuMsPerRun: number | undefined;
  /** Latency of this turn's runs (they run `threads` at a time). */
  latency: LatencySummary;
  /** When the wave started and ended, µs of the monotonic clock (V8's profiles use the same one). */
  startedUs: number;
  endedUs: number;
  /** A control wave (turn 1 on new threads): the main threads' turn it ran after (0: before the first). */
  controlAfter?: number;
}

export interface TurnSweep {
  threads: number;
  turns: TurnCost[];
  errors: number;
  firstError: string | null;
}

/**
 * The cost of one run as a function of thread length: `threads` threads advanced in lockstep, one
 * wave of `threads` concurrent runs per turn, the server's CPU counters read between waves (nothing
 * else runs then), so CPU per run at turn t is that wave's CPU over its runs. Turn 1 is also run as
 * control waves, each on `threads` new threads: FIRST_TURN_WAVES at the start, then one after every
 * CONTROL_EVERY turns. A growth ratio divides a turn's waves by the controls run beside them in
 * time (turn1Beside): on a shared machine the CPU a run costs drifts with the neighbours' load over
 * the minutes a sweep takes, and a ratio against a turn 1 measured minutes earlier carried that
 * drift.
 */
export const FIRST_TURN_WAVES = 5;
export const CONTROL_EVERY = 5;

export async function turnSweep(
  server: RunningServer,
  graphId: GraphId,
  threads: number,
  lastTurn: number,
  kind: ClientKind,
  progress: (line: string) => void,
): Promise<TurnSweep> {
  const users = benchClients(kind, server.url, threads);
  try {
    const clients = Array.from({ length: threads }, (_, i) => users.forUser(i));
    const turns: TurnCost[] = [];
    let errors = 0;
    let firstError: string | null = null;
    const started = nowMs();
    const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
    const wave = async (t: number, threadIds: string[], controlAfter?: number) => {
      const startedUs = monotonicUs();
      const cpu0 = server.cpuMs();
      const samples: number[] = [];
      await Promise.all(
        clients.map(async (client, i) => {
          const t0 = nowMs();
          try {
            await turn(client, graphId, threadIds[i] ?? "");
            samples.push(nowMs() - t0);
          } catch (error) {
            errors += 1;
            firstError ??= error instanceof Error ? error.message.slice(0, 300) : String(error);
          }
        }),
      );
      const cpu1 = server.cpuMs();
      turns.push({
        turn: t,
        cpuMsPerRun:
          cpu0 === undefined || cpu1 === undefined ? undefined : (cpu1 - cpu0) / Math.max(1, samples.length),
        latency: summarize(samples),
        startedUs,
        endedUs: monotonicUs(),
        ...(controlAfter === undefined ? {} : { controlAfter }),
      });
    };
    const control = async (after: number) =>
      wave(1, await Promise.all(clients.map((c) => c.createThread())), after);
    for (let w = 1; w < FIRST_TURN_WAVES; w += 1) await control(0);
    const threadIds = await Promise.all(clients.map((c) => c.createThread()));
    for (let t = 1; t <= lastTurn; t += 1) {
      await wave(t, threadIds);
      if (t % CONTROL_EVERY === 0) await control(t);
      if (errors > threads * 3) break;
      if (t % 25 === 0) progress(`… turn ${t}, ${((nowMs() - started) / 1000).toFixed(0)} s`);
    }
    return { threads, turns, errors, firstError };
  } finally {
    await users.close();
  }
}

/** The waves around turn `t`: the main threads' t-w to t+w; every turn-1 wave (controls too) for turn 1. */
function wavesAround(sweep: TurnSweep, t: number, w: number): TurnCost[] {
  return sweep.turns.filter((c) =>
    t === 1 ? c.turn === 1 : c.controlAfter === undefined && c.turn >= t - w && c.turn <= t + w,
  );
}

/** CPU per run around turn `t`: the mean of `wavesAround`, weighted by their runs. */
export function cpuAround(sweep: TurnSweep, t: number, w: number): number | undefined {
  return meanCpu(wavesAround(sweep, t, w));
}

/**
 * CPU per run at turn 1 beside turn `t`: the control waves run after turns t-span to t+span (with
 * the first turn's own waves when the span reaches back to it).
 */
export function turn1Beside(sweep: TurnSweep, t: number, span: number): number | undefined {
  return meanCpu(
    sweep.turns.filter((c) =>
      c.controlAfter === undefined
        ? c.turn === 1 && t - span <= 1
        : c.controlAfter >= t - span && c.controlAfter <= t + span,
    ),
  );
}

function meanCpu(waves: readonly TurnCost[]): number | undefined {
  let cpu = 0;
  let runs = 0;
  for (const wave of waves) {
    if (wave.cpuMsPerRun === undefined) return undefined;
    cpu += wave.cpuMsPerRun * wave.latency.count;
    runs += wave.latency.count;
  }
  return runs > 0 ? cpu / runs : undefined;
}

/** Latency p50 of the waves around turn `t`, as `cpuAround` picks them. */
export function p50Around(sweep: TurnSweep, t: number, w: number): number | undefined {
  const waves = wavesAround(sweep, t, w);
  if (waves.length === 0) return undefined;
  const p50s = waves.map((c) => c.latency.p50).sort((a, b) => a - b);
  return p50s[Math.floor(p50s.length / 2)];
}
