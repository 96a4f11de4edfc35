import type { FloorResult } from "./floor.js";
import type { PhaseResult } from "./loops.js";
import type { BenchPlan, ClientCount } from "./plan.js";
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

export interface ServerGraphFigures {
  latency: PhaseResult;
  throughput: Record<ClientCount, ThroughputFigures>;
}

export interface ServerFigures {
  graphs: Partial<Record<GraphId, Outcome<ServerGraphFigures>>>;
  threadCreate: Outcome<PhaseResult>;
  /** Output the server wrote after it was up (its log level is warn). */
  logLines: readonly string[];
  startSeconds: number;
}

export interface BenchResults {
  plan: BenchPlan;
  graphs: readonly GraphId[];
  berth: Outcome<ServerFigures>;
  peer: Outcome<ServerFigures>;
  floor: Partial<Record<GraphId, Outcome<FloorResult>>>;
  peerVersions: Record<string, string> | undefined;
  wallSeconds: number;
}
