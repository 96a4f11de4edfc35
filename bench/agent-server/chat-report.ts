// Plans and the printed report of the chat bench (chat.ts): every figure with the official server
// beside it, and PASS/MISS against issue 31's targets.
import { type ChatLoad, cpuAround, p50Around, type TurnSweep, turn1Beside } from "./chat-phases.js";
import type { LoopLimits, PhaseResult } from "./loops.js";
import type { GraphId } from "./workload.js";

export interface ChatPlan {
  name: "full" | "quick";
  warmup: number;
  /** Then 64 closed-loop clients (rotating threads) for this long, unmeasured: the JIT settles. */
  warmupLoadMs: number;
  /** Single-client create+join on fresh threads; the peer's lone run waits ~0.5 s in its queue. */
  sequential: LoopLimits;
  peerSequential: LoopLimits;
  clients: readonly number[];
  /** Each chat phase, from fresh threads. */
  chat: LoopLimits;
  sweepThreads: number;
  lastTurn: number;
  /** Turns the sweep is reported at (each ± SWEEP_WINDOW waves; turn 1: every control wave on new threads). */
  reportTurns: readonly number[];
  threadCreate: LoopLimits;
}

const ALL = Number.MAX_SAFE_INTEGER;

export const CHAT_PLANS: Record<"full" | "quick", ChatPlan> = {
  full: {
    name: "full",
    warmup: 20,
    warmupLoadMs: 10_000,
    sequential: { perClient: 200, maxMs: 8_000 },
    peerSequential: { perClient: 30, maxMs: 20_000 },
    clients: [16, 64],
    chat: { perClient: ALL, maxMs: 10_000 },
    sweepThreads: 32,
    lastTurn: 102,
    reportTurns: [1, 10, 50, 100],
    threadCreate: { perClient: ALL, maxMs: 3_000 },
  },
  quick: {
    name: "quick",
    warmup: 3,
    warmupLoadMs: 1_000,
    sequential: { perClient: 20, maxMs: 2_000 },
    peerSequential: { perClient: 5, maxMs: 4_000 },
    clients: [16, 64],
    chat: { perClient: ALL, maxMs: 2_000 },
    sweepThreads: 8,
    lastTurn: 12,
    reportTurns: [1, 10],
    threadCreate: { perClient: ALL, maxMs: 1_000 },
  },
};

/**
 * Waves each side of a reported turn. A mark-compact of V8 costs one wave several ms per run and
 * comes every 4–6 waves at turn 50 of the agent: with ±1 the figure depended on whether one fell
 * in the window (1.25× to 1.92× turn 50 / turn 1 for the same build, quiet machine); ±2 (five
 * waves, 160 runs, as many as turn 1's FIRST_TURN_WAVES) averages over about one GC cycle.
 */
export const SWEEP_WINDOW = 2;
/** A growth ratio's turn 1: the control waves run within this many turns of the turn measured. */
export const CONTROL_SPAN = 10;

export interface ChatGraphFigures {
  sequential: PhaseResult;
  chat: Partial<Record<number, ChatLoad>>;
  /** Load average when each chat phase ended. */
  load: Partial<Record<number, string>>;
  sweep?: TurnSweep;
  sweepLoad?: string;
}

export interface ChatServerResult {
  name: string;
  graphs: Partial<Record<GraphId, ChatGraphFigures>>;
  threads?: PhaseResult;
  error?: string;
  logLines: readonly string[];
}

/** Issue 31's targets. */
const TARGET_RUNS_VS_OFFICIAL = 3;
const TARGET_CREATE_JOIN_P50_MS = 8;
const TARGET_TURN50_VS_TURN1 = 1.5;

const fmt = (n: number | undefined, digits = 1) =>
  n === undefined || Number.isNaN(n) ? "—" : n.toFixed(digits);
const ratioOf = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || !b ? undefined : a / b;
const times = (r: number | undefined) => (r === undefined ? "—" : `${r.toFixed(2)}×`);
const verdict = (ok: boolean | undefined) => (ok === undefined ? "—" : ok ? "PASS" : "MISS");

export function chatReport(results: ChatServerResult[], graphs: GraphId[], plan: ChatPlan): string {
  const official = results[0];
  const berths = results.slice(1);
  const lines: string[] = [];
  const head = `| | ${results.map((r) => r.name).join(" | ")} | ${berths.map((b) => `${b.name} / official`).join(" | ")} | target |`;
  const rule = `|---|${results.map(() => "---:|").join("")}${berths.map(() => "---:|").join("")}---|`;
  const row = (
    label: string,
    value: (r: ChatServerResult) => number | undefined,
    digits: number,
    target?: (defaults: number | undefined, ratio: number | undefined) => string,
  ) => {
    const ratios = berths.map((b) => ratioOf(value(b), official ? value(official) : undefined));
    const mark = target ? target(berths[0] ? value(berths[0]) : undefined, ratios[0]) : "";
    lines.push(
      `| ${label} | ${results.map((r) => fmt(value(r), digits)).join(" | ")} | ${ratios.map(times).join(" | ")} | ${mark} |`,
    );
  };
  for (const graphId of graphs) {
    const g = (r: ChatServerResult) => r.graphs[graphId];
    lines.push("", `**${graphId}** (threads kept: every run appends to its user's thread)`, "", head, rule);
    row(
      "create+join p50, one client, ms",
      (r) => g(r)?.sequential.latency.p50,
      1,
      (d) =>
        d === undefined
          ? ""
          : `≤ ${TARGET_CREATE_JOIN_P50_MS} ms — ${verdict(d <= TARGET_CREATE_JOIN_P50_MS)}`,
    );
    row("create+join p99, one client, ms", (r) => g(r)?.sequential.latency.p99, 1);
    for (const clients of plan.clients) {
      row(
        `runs/s, ${clients} clients`,
        (r) => g(r)?.chat[clients]?.phase.perSecond,
        1,
        (_d, ratio) =>
          clients === 64 && ratio !== undefined
            ? `≥ ${TARGET_RUNS_VS_OFFICIAL}× — ${verdict(ratio >= TARGET_RUNS_VS_OFFICIAL)}`
            : "",
      );
    }
    for (const clients of plan.clients) {
      row(`server CPU ms/run, ${clients} clients`, (r) => g(r)?.chat[clients]?.cpuMsPerRun, 2);
    }
    for (const clients of plan.clients) {
      row(`run p50 ms, ${clients} clients`, (r) => g(r)?.chat[clients]?.phase.latency.p50, 0);
      row(`run p99 ms, ${clients} clients`, (r) => g(r)?.chat[clients]?.phase.latency.p99, 0);
    }
    for (const clients of plan.clients) {
      row(`turns reached, ${clients} clients (mean)`, (r) => g(r)?.chat[clients]?.meanTurns, 0);
    }
    const sweep = (r: ChatServerResult) => g(r)?.sweep;
    const threads = results.find((r) => sweep(r))?.graphs[graphId]?.sweep?.threads ?? plan.sweepThreads;
    for (const t of plan.reportTurns) {
      row(
        `CPU ms/run at turn ${t} (${threads} threads a wave)`,
        (r) => {
          const s = sweep(r);
          return s ? cpuAround(s, t, SWEEP_WINDOW) : undefined;
        },
        2,
      );
    }
    const mid = plan.reportTurns.includes(50) ? 50 : (plan.reportTurns.at(-1) ?? 1);
    row(
      `CPU ms/run at turn 1, control waves beside turn ${mid}`,
      (r) => {
        const s = sweep(r);
        return s ? turn1Beside(s, mid, CONTROL_SPAN) : undefined;
      },
      2,
    );
    row(
      `CPU at turn ${mid} / turn 1 beside it`,
      (r) => {
        const s = sweep(r);
        return s ? ratioOf(cpuAround(s, mid, SWEEP_WINDOW), turn1Beside(s, mid, CONTROL_SPAN)) : undefined;
      },
      2,
      (d) => (d === undefined ? "" : `≤ ${TARGET_TURN50_VS_TURN1} — ${verdict(d <= TARGET_TURN50_VS_TURN1)}`),
    );
    for (const t of plan.reportTurns) {
      row(
        `run p50 ms at turn ${t} (${threads} at once)`,
        (r) => {
          const s = sweep(r);
          return s ? p50Around(s, t, SWEEP_WINDOW) : undefined;
        },
        0,
      );
    }
    const errors = (r: ChatServerResult) =>
      plan.clients.reduce((sum, c) => sum + (g(r)?.chat[c]?.phase.errors ?? 0), 0) +
      (g(r)?.sequential.errors ?? 0) +
      (sweep(r)?.errors ?? 0);
    lines.push(`| failed runs | ${results.map(errors).join(" | ")} | | |`);
    for (const r of results) {
      const f = g(r);
      if (!f) continue;
      const loads = plan.clients.map((c) => `${c} clients ${f.load[c] ?? "?"}`).join("; ");
      lines.push(`${r.name}: load average after ${loads}; after the sweep ${f.sweepLoad ?? "?"}`);
      const first = f.sweep?.firstError ?? plan.clients.map((c) => f.chat[c]?.phase.firstError).find(Boolean);
      if (first) lines.push(`${r.name}: first error: ${first}`);
    }
  }
  lines.push("", head, rule);
  row("thread create req/s, 64 connections", (r) => r.threads?.perSecond, 0);
  for (const r of results) {
    if (r.error) lines.push(`${r.name}: unavailable (${r.error})`);
    if (r.logLines.length) lines.push(`${r.name} logged ${r.logLines.length} lines; first: ${r.logLines[0]}`);
  }
  return lines.join("\n");
}
