import type { FloorResult } from "./floor.js";
import type { PhaseResult } from "./loops.js";
import { CLIENT_COUNTS, type SoakPlan, THREAD_CREATE_CLIENTS } from "./plan.js";
import type {
  BenchResults,
  Outcome,
  ServerFigures,
  ServerGraphFigures,
  SoakFigures,
  StreamFigures,
  ThroughputFigures,
} from "./results.js";
import { mb } from "./soak.js";
import type { LatencySummary } from "./stats.js";
import type { GraphId } from "./workload.js";

/** The targets Berth is held to; the report prints PASS/MISS next to each figure they apply to. */
export const TARGETS = {
  latencyTimesFaster: 40,
  throughputTimesPeer: 10,
  floorPercent: 50,
  /** RSS at the end of the soak over RSS after its warm-up, minus 1. */
  soakGrowthPercent: 10,
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
  // Stream times, all from the runs.stream call: first event (metadata), first values event, end.
  const streamTimes: Array<[string, (f: StreamFigures) => LatencySummary]> = [
    ["first event", (f) => f.firstEvent],
    ["first values", (f) => f.firstValues],
    ["end", (f) => f.phase.latency],
  ];
  for (const [label, pick] of streamTimes) {
    for (const p of ["p50", "p99"] as const) {
      const b = berth ? pick(berth.stream)[p] : Number.NaN;
      const q = peer ? pick(peer.stream)[p] : Number.NaN;
      out.push(row([`stream ${label} ${p}`, ms(b), ms(q), peer && berth ? `${times(q / b)} faster` : ""]));
    }
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
    const st = figures.stream;
    out.push(
      `  ${name} sequential: ${l.completed} runs, create+join mean ${ms(l.latency.mean)}, max ${ms(l.latency.max)}`,
      `  ${name} stream: ${st.phase.completed} runs, ${st.eventsPerRun.toFixed(1)} events each; ` +
        `mean first event ${ms(st.firstEvent.mean)} / first values ${ms(st.firstValues.mean)} / end ${ms(st.phase.latency.mean)}, ` +
        `max end ${ms(st.phase.latency.max)}` +
        (st.notMetadataFirst > 0 ? `; ${st.notMetadataFirst} streams did NOT start with metadata` : ""),
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
    berth && errorNote("Berth", "stream", berth.stream.phase),
    peer && errorNote("peer", "stream", peer.stream.phase),
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

function soakSection(plan: SoakPlan, outcome: Outcome<SoakFigures>): string[] {
  const out = [rule(`soak: Berth, ${plan.graph} graph, ${plan.clients} clients, ${plan.runs} runs`)];
  const soak = ok(outcome);
  if (!soak) {
    out.push(`Berth: ${why(outcome)}`);
    return out;
  }
  const { warmup, end, phase } = soak;
  const finished = phase.completed + phase.errors;
  const growth = warmup && end ? (end.rssBytes / warmup.rssBytes - 1) * 100 : Number.NaN;
  const memory = (sample: { rssBytes: number } | undefined) => (sample ? `${mb(sample.rssBytes)} MB` : "—");
  out.push(
    row(["", "Berth", "", "", "target", ""]),
    row([`RSS after ${plan.warmupRuns}-run warm-up`, memory(warmup)]),
    row([`RSS after ${plan.runs} runs`, end ? memory(end) : `— (only ${finished} finished)`]),
    row([
      "RSS growth",
      Number.isFinite(growth) ? `${growth.toFixed(1)}%` : "—",
      "",
      "",
      `< ${TARGETS.soakGrowthPercent}%`,
      Number.isFinite(growth) ? verdict(growth < TARGETS.soakGrowthPercent) : "MISS",
    ]),
    row(["failed runs", String(phase.errors), "", "", "0", verdict(phase.errors === 0 && end !== undefined)]),
    row(["runs/s", rate(phase.perSecond)]),
    "",
    "RSS series (runs finished → RSS, runs/s since the previous sample)",
    `  idle, before the first run: ${memory(soak.idleRssBytes === undefined ? undefined : { rssBytes: soak.idleRssBytes })}`,
  );
  for (const sample of soak.samples) {
    const mark = sample === warmup ? "  ← baseline" : "";
    out.push(
      `  ${String(sample.runs).padStart(6)} runs  ${mb(sample.rssBytes).padStart(7)} MB  ` +
        `${rate(sample.perSecond).padStart(5)} runs/s  (${sample.seconds.toFixed(0)} s)${mark}`,
    );
  }
  const cpu =
    soak.serverCpuMsPerRun === undefined ? "" : `, server CPU per run ${ms(soak.serverCpuMsPerRun)}`;
  out.push(
    `  run latency p50 ${ms(phase.latency.p50)} / p99 ${ms(phase.latency.p99)} / max ${ms(phase.latency.max)}${cpu}; ` +
      `data directory at the end ${mb(soak.dataBytes)} MB`,
  );
  const note = errorNote("Berth", "soak", phase);
  if (note) out.push(note);
  return out;
}

function serverNotes(results: BenchResults): string[] {
  const out: string[] = [rule("servers")];
  const soak: Outcome<ServerFigures> =
    results.soak.status === "ok"
      ? {
          status: "ok",
          value: {
            graphs: {},
            threadCreate: { status: "skipped", reason: "soak" },
            logLines: results.soak.value.logLines,
            startSeconds: results.soak.value.startSeconds,
          },
        }
      : results.soak;
  for (const [name, outcome] of [
    ["Berth", results.berth],
    ["peer", results.peer],
    ["Berth (soak)", soak],
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
  // --only soak: no comparison tables full of "skipped".
  const compared = results.berth.status !== "skipped" || results.peer.status !== "skipped";
  if (compared) {
    for (const graphId of results.graphs) lines.push(...graphSection(results, graphId), "");
    lines.push(...threadSection(results), "");
  }
  if (results.soak.status !== "skipped") lines.push(...soakSection(results.plan.soak, results.soak), "");
  lines.push(...serverNotes(results), "");
  lines.push(`total bench time ${results.wallSeconds.toFixed(0)} s (${results.plan.name} profile)`);
  return lines.join("\n");
}
