import type { FloorPlan } from "./floor.js";
import type { LoopLimits } from "./loops.js";

/** Concurrent client counts of the throughput phases. */
export const CLIENT_COUNTS = [16, 64] as const;
export type ClientCount = (typeof CLIENT_COUNTS)[number];

/** Clients of the thread-creation phase. */
export const THREAD_CREATE_CLIENTS = 16;

export interface ServerPlan {
  /** Successful runs per graph before measuring (JIT, module loading, first SQLite pages). */
  warmup: number;
  /** Then 64 closed-loop clients for this long, unmeasured (warmUpUnderLoad). */
  warmupLoadMs: number;
  latency: LoopLimits;
  /** Sequential `runs.stream` calls on fresh threads (time to first event, first values, end). */
  stream: LoopLimits;
  throughput: LoopLimits;
  threadCreate: LoopLimits;
}

/** The long run on Berth alone: does its memory settle or keep growing? */
export interface SoakPlan {
  graph: "echo";
  clients: number;
  /** Runs in all, warm-up included. */
  runs: number;
  /** RSS after this many runs is the baseline the growth is measured against. */
  warmupRuns: number;
  /** RSS is sampled each time this many more runs have finished. */
  sampleEvery: number;
  /** No client starts a run after this long: a soak that slows to a crawl still ends. */
  maxMs: number;
}

export interface BenchPlan {
  name: "full" | "quick";
  /** Runs a throughput client (and a floor loop) makes on one thread before taking a fresh one. */
  runsPerThread: number;
  berth: ServerPlan;
  peer: ServerPlan;
  floor: Omit<FloorPlan, "runsPerThread">;
  soak: SoakPlan;
}

const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/**
 * Berth gets counts and the peer gets time boxes: the peer's workers sleep a random 0–1000 ms
 * whenever its queue is empty, so a sequential run there costs about half a second and 40 of them
 * already take ~25 s; its 30 streams per graph take ~15 s more. Totals stay near 6–7 minutes on 2
 * cores for both graphs and the soak (10,000 echo runs, about a minute at Berth's 16-client rate),
 * 12 s of unmeasured load per server and graph included.
 */
const FULL: BenchPlan = {
  name: "full",
  runsPerThread: 10,
  berth: {
    warmup: 50,
    warmupLoadMs: 12_000,
    latency: { perClient: 300, maxMs: 30_000 },
    stream: { perClient: 200, maxMs: 20_000 },
    throughput: { perClient: UNBOUNDED, maxMs: 10_000 },
    threadCreate: { perClient: UNBOUNDED, maxMs: 3_000 },
  },
  peer: {
    warmup: 3,
    warmupLoadMs: 12_000,
    latency: { perClient: 40, maxMs: 60_000 },
    stream: { perClient: 30, maxMs: 40_000 },
    throughput: { perClient: UNBOUNDED, maxMs: 12_000 },
    threadCreate: { perClient: UNBOUNDED, maxMs: 3_000 },
  },
  floor: {
    // As many invokes as the servers' warm-up under load runs, so the floor is measured warm too.
    warmup: 2_000,
    sequential: { perClient: 300, maxMs: 5_000 },
    concurrency: 16,
    concurrent: { perClient: UNBOUNDED, maxMs: 5_000 },
  },
  soak: { graph: "echo", clients: 16, runs: 10_000, warmupRuns: 1_000, sampleEvery: 1_000, maxMs: 240_000 },
};

/** A smoke check that every phase works end to end (under a minute); its figures mean little. */
const QUICK: BenchPlan = {
  name: "quick",
  runsPerThread: 10,
  berth: {
    warmup: 3,
    warmupLoadMs: 500,
    latency: { perClient: 20, maxMs: 5_000 },
    stream: { perClient: 10, maxMs: 5_000 },
    throughput: { perClient: UNBOUNDED, maxMs: 1_500 },
    threadCreate: { perClient: UNBOUNDED, maxMs: 500 },
  },
  peer: {
    warmup: 1,
    warmupLoadMs: 500,
    latency: { perClient: 3, maxMs: 10_000 },
    stream: { perClient: 3, maxMs: 10_000 },
    throughput: { perClient: UNBOUNDED, maxMs: 2_000 },
    threadCreate: { perClient: UNBOUNDED, maxMs: 500 },
  },
  floor: {
    warmup: 2,
    sequential: { perClient: 50, maxMs: 1_000 },
    concurrency: 16,
    concurrent: { perClient: UNBOUNDED, maxMs: 1_000 },
  },
  soak: { graph: "echo", clients: 16, runs: 500, warmupRuns: 100, sampleEvery: 100, maxMs: 30_000 },
};

export function benchPlan(quick: boolean): BenchPlan {
  return quick ? QUICK : FULL;
}
