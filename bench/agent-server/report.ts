import type { FloorResult } from "./floor.js";
import type { PhaseResult } from "./loops.js";
import { CLIENT_COUNTS, THREAD_CREATE_CLIENTS } from "./plan.js";
import type {
  BenchResults,
  Outcome,
  ServerFigures,
  ServerGraphFigures,
  ThroughputFigures,
} from "./results.js";
import type { GraphId } from "./workload.js";

/** The targets Berth is held to; the report prints PASS/MISS next to each figure they apply to. */
export const TARGETS = {
  latencyTimesFaster: 40,
  throughputTimesPeer: 10,
  floorPercent: 50,
} as const;

function ms(value: number): string {
  if (!Number.isFinite(value)) return "—";
  return `${value.toFixed(value < 10 ? 2 : value < 100 ? 1 : 0)} ms`;
}

function rate(value: number): string {
  if (!Number.isFinite(value)) return "—";
  return value.toFixed(value < 10 ? 2 : value < 100 ? 1 : 0);
}

function times(value: number): string {
  if (!Number.isFinite(value)) return "—";
  return `${value.toFixed(value < 100 ? 1 : 0)}×`;
}

function verdict(ok: boolean): string {
  return ok ? "PASS" : "MISS";
}

const WIDTHS = [34, 11, 11, 16, 15, 4] as const;

/** One table row: a left-aligned label, right-aligned figures, then target and verdict. */
function row(cells: readonly string[]): string {
  return cells
    .map((cell, i) => {
      const width = WIDTHS[i] ?? 10;
      return i === 0 || i >= 3 ? cell.padEnd(width) : cell.padStart(width);
    })
    .join(" ")
    .trimEnd();
}

function rule(title: string): string {
  return `── ${title} ${"─".repeat(Math.max(4, 92 - title.length))}`;
}

function ok<T>(outcome: Outcome<T> | undefined): T | undefined {
  return outcome?.status === "ok" ? outcome.value : undefined;
}

function why<T>(outcome: Outcome<T> | undefined): string {
  if (outcome === undefined) return "not run";
  return outcome.status === "ok" ? "" : `${outcome.status} (${outcome.reason})`;
}

function graphFigures(server: Outcome<ServerFigures>, graphId: GraphId): Outcome<ServerGraphFigures> {
  if (server.status !== "ok") return server;
  return server.value.graphs[graphId] ?? { status: "skipped", reason: "not run" };
}

function errorNote(name: string, phase: string, result: PhaseResult): string | undefined {
  if (result.errors === 0) return undefined;
  return `  ! ${name} ${phase}: ${result.errors} failed operations; first: ${result.firstError ?? "?"}`;
}

function throughputDetail(name: string, clients: number, figures: ThroughputFigures): string {
  const { phase } = figures;
  const cpu =
    figures.serverCpuMsPerRun === undefined
      ? ""
      : `; CPU per run: server ${ms(figures.serverCpuMsPerRun)}, bench clients ${ms(figures.clientCpuMsPerRun)}`;
  return (
    `  ${name} ${clients} clients: ${phase.completed} runs in ${phase.seconds.toFixed(1)} s, ` +
    `run latency p50 ${ms(phase.latency.p50)} / p99 ${ms(phase.latency.p99)} / max ${ms(phase.latency.max)}${cpu}`
  );
}

function graphSection(results: BenchResults, graphId: GraphId): string[] {
  const out: string[] = [rule(`${graphId} graph`)];
  const berthOutcome = graphFigures(results.berth, graphId);
  const peerOutcome = graphFigures(results.peer, graphId);
  const berth = ok(berthOutcome);
  const peer = ok(peerOutcome);
  if (!berth) out.push(`Berth: ${why(berthOutcome)}`);
  if (!peer) out.push(`peer: ${why(peerOutcome)}`);

  out.push(row(["", "Berth", "peer", "Berth vs peer", "target", ""]));
  for (const p of ["p50", "p99"] as const) {
    const b = berth?.latency.latency[p] ?? Number.NaN;
    const q = peer?.latency.latency[p] ?? Number.NaN;
    const faster = q / b;
    const target =
      p === "p50" && berth && peer
        ? [`≥ ${TARGETS.latencyTimesFaster}× faster`, verdict(faster >= TARGETS.latencyTimesFaster)]
        : ["", ""];
    out.push(
      row([`create+join ${p}`, ms(b), ms(q), peer && berth ? `${times(faster)} faster` : "", ...target]),
    );
  }
  for (const clients of CLIENT_COUNTS) {
    const b = berth?.throughput[clients].phase.perSecond ?? Number.NaN;
    const q = peer?.throughput[clients].phase.perSecond ?? Number.NaN;
    const ratio = b / q;
    const target =
      berth && peer
        ? [`≥ ${TARGETS.throughputTimesPeer}×`, verdict(ratio >= TARGETS.throughputTimesPeer)]
        : ["", ""];
    out.push(
      row([`runs/s, ${clients} clients`, rate(b), rate(q), berth && peer ? times(ratio) : "", ...target]),
    );
  }

  const floorOutcome = results.floor[graphId];
  const floor = ok(floorOutcome);
  out.push("");
  if (!floor) {
    out.push(`floor: ${why(floorOutcome)}`);
  } else {
    out.push(...floorRows(floor, berth, results.plan.floor.concurrency));
  }

  out.push("", "details");
  for (const [name, figures] of [
    ["Berth", berth],
    ["peer", peer],
  ] as const) {
    if (!figures) continue;
    const l = figures.latency;
    out.push(
      `  ${name} sequential: ${l.completed} runs, create+join mean ${ms(l.latency.mean)}, max ${ms(l.latency.max)}`,
    );
    for (const clients of CLIENT_COUNTS)
      out.push(throughputDetail(name, clients, figures.throughput[clients]));
  }
  if (floor) {
    const s = floor.sequential;
    const c = floor.concurrent;
    out.push(
      `  floor sequential: ${s.completed} invokes, mean ${ms(s.latency.mean)}, p50 ${ms(s.latency.p50)}, p99 ${ms(s.latency.p99)}`,
      `  floor ${results.plan.floor.concurrency} concurrent: ${c.completed} invokes in ${c.seconds.toFixed(1)} s, ` +
        `p50 ${ms(c.latency.p50)} / p99 ${ms(c.latency.p99)}; CPU per run ${ms(floor.concurrentCpuMsPerRun)}`,
    );
  }
  const notes = [
    berth && errorNote("Berth", "sequential", berth.latency),
    peer && errorNote("peer", "sequential", peer.latency),
    ...CLIENT_COUNTS.flatMap((clients) => [
      berth && errorNote("Berth", `${clients} clients`, berth.throughput[clients].phase),
      peer && errorNote("peer", `${clients} clients`, peer.throughput[clients].phase),
    ]),
    floor && errorNote("floor", "sequential", floor.sequential),
    floor && errorNote("floor", "concurrent", floor.concurrent),
  ].filter((note): note is string => typeof note === "string");
  out.push(...notes);
  return out;
}

/** The floor runs `concurrency` (16) loops: it is held against Berth's 16-client figure. */
function floorRows(floor: FloorResult, berth: ServerGraphFigures | undefined, concurrency: number): string[] {
  const out = [row(["floor: graph.invoke in process", "floor", "Berth", "Berth / floor", "target", ""])];
  const pct = (b: number, f: number) => (b / f) * 100;
  const line = (label: string, f: number, b: number, withTarget: boolean) => {
    const share = pct(b, f);
    const target =
      withTarget && berth ? [`≥ ${TARGETS.floorPercent}%`, verdict(share >= TARGETS.floorPercent)] : ["", ""];
    out.push(row([label, rate(f), rate(b), berth ? `${share.toFixed(1)}%` : "", ...target]));
  };
  // Berth's sequential rate is what one client gets back to back: 1000 / mean create+join.
  line(
    "sequential runs/s",
    floor.sequential.perSecond,
    berth ? 1000 / berth.latency.latency.mean : Number.NaN,
    true,
  );
  line(
    `${concurrency} concurrent runs/s`,
    floor.concurrent.perSecond,
    berth?.throughput[16].phase.perSecond ?? Number.NaN,
    true,
  );
  line(
    `64 clients vs the ${concurrency}-loop floor`,
    floor.concurrent.perSecond,
    berth?.throughput[64].phase.perSecond ?? Number.NaN,
    false,
  );
  return out;
}

function threadSection(results: BenchResults): string[] {
  const berth = ok(results.berth) ? ok(ok(results.berth)?.threadCreate) : undefined;
  const peer = ok(results.peer) ? ok(ok(results.peer)?.threadCreate) : undefined;
  const b = berth?.perSecond ?? Number.NaN;
  const q = peer?.perSecond ?? Number.NaN;
  const out = [
    rule("threads (graph-independent)"),
    row(["", "Berth", "peer", "Berth vs peer", "", ""]),
    row([
      `thread create req/s, ${THREAD_CREATE_CLIENTS} clients`,
      rate(b),
      rate(q),
      berth && peer ? times(b / q) : "",
    ]),
  ];
  for (const [name, figures] of [
    ["Berth", berth],
    ["peer", peer],
  ] as const) {
    if (!figures) continue;
    out.push(
      `  ${name}: ${figures.completed} threads in ${figures.seconds.toFixed(1)} s, ` +
        `p50 ${ms(figures.latency.p50)} / p99 ${ms(figures.latency.p99)}`,
    );
    const note = errorNote(name, "thread create", figures);
    if (note) out.push(note);
  }
  return out;
}

function serverNotes(results: BenchResults): string[] {
  const out: string[] = [rule("servers")];
  for (const [name, outcome] of [
    ["Berth", results.berth],
    ["peer", results.peer],
  ] as const) {
    if (outcome.status !== "ok") {
      out.push(`${name}: ${why(outcome)}`);
      continue;
    }
    const { logLines, startSeconds } = outcome.value;
    out.push(
      `${name}: up in ${startSeconds.toFixed(1)} s; ${logLines.length} output lines while running (log level warn)`,
    );
    for (const line of logLines.slice(0, 8))
      out.push(`  | ${line.length > 200 ? `${line.slice(0, 200)}…` : line}`);
  }
  return out;
}

/** The whole side-by-side report, printed once every phase has run. */
export function renderReport(results: BenchResults): string {
  const lines: string[] = [""];
  for (const graphId of results.graphs) lines.push(...graphSection(results, graphId), "");
  lines.push(...threadSection(results), "", ...serverNotes(results), "");
  lines.push(`total bench time ${results.wallSeconds.toFixed(0)} s (${results.plan.name} profile)`);
  return lines.join("\n");
}
