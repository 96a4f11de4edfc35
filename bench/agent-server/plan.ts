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
  latency: LoopLimits;
  throughput: LoopLimits;
  threadCreate: LoopLimits;
}

export interface BenchPlan {
  name: "full" | "quick";
  /** Runs a throughput client (and a floor loop) makes on one thread before taking a fresh one. */
  runsPerThread: number;
  berth: ServerPlan;
  peer: ServerPlan;
  floor: Omit<FloorPlan, "runsPerThread">;
}

const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/**
 * Berth gets counts and the peer gets time boxes: the peer's workers sleep a random 0–1000 ms
 * whenever its queue is empty, so a sequential run there costs about half a second and 40 of them
 * already take ~25 s. Totals stay near 4–5 minutes on 2 cores for both graphs.
 */
const FULL: BenchPlan = {
  name: "full",
  runsPerThread: 10,
  berth: {
    warmup: 50,
    latency: { perClient: 300, maxMs: 30_000 },
    throughput: { perClient: UNBOUNDED, maxMs: 10_000 },
    threadCreate: { perClient: UNBOUNDED, maxMs: 3_000 },
  },
  peer: {
    warmup: 3,
    latency: { perClient: 40, maxMs: 60_000 },
    throughput: { perClient: UNBOUNDED, maxMs: 12_000 },
    threadCreate: { perClient: UNBOUNDED, maxMs: 3_000 },
  },
  floor: {
    warmup: 10,
    sequential: { perClient: 300, maxMs: 5_000 },
    concurrency: 16,
    concurrent: { perClient: UNBOUNDED, maxMs: 5_000 },
  },
};

/** A smoke check that every phase works end to end (under a minute); its figures mean little. */
const QUICK: BenchPlan = {
  name: "quick",
  runsPerThread: 10,
  berth: {
    warmup: 3,
    latency: { perClient: 20, maxMs: 5_000 },
    throughput: { perClient: UNBOUNDED, maxMs: 1_500 },
    threadCreate: { perClient: UNBOUNDED, maxMs: 500 },
  },
  peer: {
    warmup: 1,
    latency: { perClient: 3, maxMs: 10_000 },
    throughput: { perClient: UNBOUNDED, maxMs: 2_000 },
    threadCreate: { perClient: UNBOUNDED, maxMs: 500 },
  },
  floor: {
    warmup: 2,
    sequential: { perClient: 50, maxMs: 1_000 },
    concurrency: 16,
    concurrent: { perClient: UNBOUNDED, maxMs: 1_000 },
  },
};

export function benchPlan(quick: boolean): BenchPlan {
  return quick ? QUICK : FULL;
}
