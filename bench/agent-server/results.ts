import type { FloorResult } from "./floor.js";
import type { PhaseResult } from "./loops.js";
import type { BenchPlan, ClientCount } from "./plan.js";
import type { LatencySummary } from "./stats.js";
import type { GraphId } from "./workload.js";

/** A part of the bench that ran, could not run (with the reason), or was left out by a flag. */
export type Outcome<T> =
  | { status: "ok"; value: T }
  | { status: "unavailable"; reason: string }
  | { status: "skipped"; reason: string };

export interface ThroughputFigures {
  phase: PhaseResult;
  /** CPU the server's processes used per completed run (both cores count). */
  serverCpuMsPerRun: number | undefined;
  /** CPU the bench process (SDK clients) used per completed run: it shares the 2 cores. */
  clientCpuMsPerRun: number;
}

/** Sequential `runs.stream(…, {streamMode: "values"})` on fresh threads, timed from the call. */
export interface StreamFigures {
  /** `latency` here is call → end of stream. */
  phase: PhaseResult;
  /** Call → first event of any kind (`metadata` on both servers). */
  firstEvent: LatencySummary;
  /** Call → first `values` event. */
  firstValues: LatencySummary;
  /** Mean events per stream. */
  eventsPerRun: number;
  /** Streams whose first event was not `metadata` (0 expected). */
  notMetadataFirst: number;
}

export interface ServerGraphFigures {
  latency: PhaseResult;
  stream: StreamFigures;
  throughput: Record<ClientCount, ThroughputFigures>;
}

export interface ServerFigures {
  graphs: Partial<Record<GraphId, Outcome<ServerGraphFigures>>>;
  threadCreate: Outcome<PhaseResult>;
  /** Output the server wrote after it was up (its log level is warn). */
  logLines: readonly string[];
  startSeconds: number;
}

/** Berth's resident memory after a number of finished runs of the soak. */
export interface RssSample {
  runs: number;
  rssBytes: number;
  /** Seconds since the soak started. */
  seconds: number;
  /** Runs/s over the runs since the previous sample. */
  perSecond: number;
}

export interface SoakFigures {
  /** Latency per run (create + join), errors and overall rate of the whole soak. */
  phase: PhaseResult;
  /** RSS just before the first run (server up, idle). */
  idleRssBytes: number | undefined;
  samples: RssSample[];
  /** The sample at the end of the warm-up (the baseline) and the last one. */
  warmup: RssSample | undefined;
  end: RssSample | undefined;
  serverCpuMsPerRun: number | undefined;
  /** Size of the data directory (SQLite files) at the end. */
  dataBytes: number;
  logLines: readonly string[];
  startSeconds: number;
}

export interface BenchResults {
  plan: BenchPlan;
  graphs: readonly GraphId[];
  berth: Outcome<ServerFigures>;
  peer: Outcome<ServerFigures>;
  floor: Partial<Record<GraphId, Outcome<FloorResult>>>;
  soak: Outcome<SoakFigures>;
  peerVersions: Record<string, string> | undefined;
  wallSeconds: number;
}
