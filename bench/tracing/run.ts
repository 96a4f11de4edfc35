// Tracing bench (issue 17): ingest throughput of the control plane's LangSmith-compatible API
// (multipart batches as the SDK sends them, written to the embedded SQLite), and the example
// agent's run latency and runs/s with tracing to Berth on and off.
import { randomUUID } from "node:crypto";
import autocannon from "autocannon";
import { startAgentServer, startControlPlane } from "./processes.js";

const quick = process.argv.includes("--quick");
const INGEST_SECONDS = quick ? 3 : 10;
const RUNS_PER_REQUEST = 50;
const CONNECTIONS = 8;
const SEQUENTIAL_RUNS = quick ? 30 : 150;
const CONCURRENT_RUNS = quick ? 40 : 200;
const CONCURRENCY = 8;
const TARGET_RUNS_PER_S = 2_000;
const TARGET_OVERHEAD = 0.1;
const KEY = "trace-bench-key-0123456789abcdef";
const BOUNDARY = "benchBoundary";

function log(message: string): void {
  process.stdout.write(`${message}\n`);
}

/** One multipart body of `n` finished runs (one trace: a root and its children), fresh ids. */
function multipartBody(n: number): string {
  const traceId = randomUUID();
  const now = Date.now();
  const stamp = new Date(now).toISOString().replace(/[-:.]/g, "").replace("Z", "000Z");
  const parts: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const id = i === 0 ? traceId : randomUUID();
    const run = {
      id,
      trace_id: traceId,
      parent_run_id: i === 0 ? null : traceId,
      dotted_order: i === 0 ? `${stamp}${traceId}` : `${stamp}${traceId}.${stamp}${id}`,
      name: i === 0 ? "graph" : `node-${i}`,
      run_type: i % 5 === 1 ? "llm" : "chain",
      start_time: now,
      end_time: now + 5,
      session_name: "ingest-bench",
    };
    const inputs = JSON.stringify({ messages: [{ role: "user", content: `question ${i} `.repeat(8) }] });
    const outputs = JSON.stringify({
      messages: [{ role: "assistant", content: `answer ${i} `.repeat(8) }],
      usage_metadata: { input_tokens: 12, output_tokens: 9, total_tokens: 21 },
    });
    const fields: Array<[string, string]> = [
      [`post.${id}`, JSON.stringify(run)],
      [`post.${id}.inputs`, inputs],
      [`post.${id}.outputs`, outputs],
    ];
    for (const [name, body] of fields) {
      parts.push(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\nContent-Type: application/json; length=${body.length}\r\n\r\n${body}\r\n`,
      );
    }
  }
  return `${parts.join("")}--${BOUNDARY}--\r\n`;
}

async function traceCounters(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const match of text.matchAll(/berth_cp_trace_runs_total\{outcome="([a-z_]+)"\} (\d+)/g)) {
    out[match[1] as string] = Number(match[2]);
  }
  return out;
}

async function ingestPhase(url: string): Promise<void> {
  log(
    `… ingest: ${CONNECTIONS} connections × ${RUNS_PER_REQUEST} runs a multipart request, ${INGEST_SECONDS} s`,
  );
  const started = Date.now();
  const result = await autocannon({
    url: `${url}/langsmith-api/runs/multipart`,
    method: "POST",
    connections: CONNECTIONS,
    duration: INGEST_SECONDS,
    headers: { "x-api-key": KEY, "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    requests: [{ setupRequest: (request) => ({ ...request, body: multipartBody(RUNS_PER_REQUEST) }) }],
  });
  const sent = Date.now();
  let counters = await traceCounters(url);
  const settled = () =>
    (counters.written ?? 0) + (counters.dropped_write_failed ?? 0) >= (counters.accepted ?? 0);
  while (!settled() && Date.now() - sent < 120_000) {
    await new Promise((r) => setTimeout(r, 100));
    counters = await traceCounters(url);
  }
  const done = Date.now();
  const written = counters.written ?? 0;
  log(
    `  requests ${result.requests.total} (non-2xx ${result.non2xx}, errors ${result.errors}), p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`,
  );
  log(
    `  runs accepted ${counters.accepted ?? 0}, written ${written}, dropped (queue full) ${counters.dropped_queue_full ?? 0}, dropped (write failed) ${counters.dropped_write_failed ?? 0}`,
  );
  const accepted = (counters.accepted ?? 0) / ((sent - started) / 1000);
  const perSecond = written / ((done - started) / 1000);
  log(
    `  accepted ${accepted.toFixed(0)} runs/s while sending; written end to end ${perSecond.toFixed(0)} runs/s`,
  );
  log(
    `target: ingest ≥ ${TARGET_RUNS_PER_S} runs/s written — ${perSecond >= TARGET_RUNS_PER_S ? "PASS" : "MISS"} (${perSecond.toFixed(0)})`,
  );
}

async function agentRun(url: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${url}/runs/wait`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      assistant_id: "agent",
      input: { messages: [{ role: "user", content: "What is (6 + 1) * 6?" }] },
    }),
  });
  const body = await res.text();
  if (res.status !== 200 || !body.includes("42"))
    throw new Error(`run failed: ${res.status} ${body.slice(0, 300)}`);
  return performance.now() - t0;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** One agent server (tracing on or off): sequential run latencies and runs/s at a fixed concurrency. */
async function agentPhase(env: Record<string, string>): Promise<{ latencies: number[]; perSecond: number }> {
  const agent = await startAgentServer(env);
  try {
    for (let i = 0; i < 5; i += 1) await agentRun(agent.url); // warm-up
    const latencies: number[] = [];
    for (let i = 0; i < SEQUENTIAL_RUNS; i += 1) latencies.push(await agentRun(agent.url));
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < CONCURRENT_RUNS) {
          next += 1;
          await agentRun(agent.url);
        }
      }),
    );
    return { latencies, perSecond: CONCURRENT_RUNS / ((performance.now() - t0) / 1000) };
  } finally {
    await agent.stop();
  }
}

async function main(): Promise<void> {
  log(`Tracing bench (${quick ? "quick" : "full"}); figures depend on the machine's load.`);
  const plane = await startControlPlane(KEY);
  try {
    await ingestPhase(plane.url);
    log(`… agent runs (example ReAct agent, offline model), tracing off then on`);
    // Off and on alternate (twice each), so a change in the machine's load hits both alike.
    const tracingEnv = {
      LANGSMITH_TRACING: "true",
      LANGSMITH_ENDPOINT: `${plane.url}/langsmith-api`,
      LANGSMITH_API_KEY: KEY,
      LANGSMITH_PROJECT: "agent-bench",
      LANGCHAIN_CALLBACKS_BACKGROUND: "true",
    };
    const modes = {
      off: { latencies: [] as number[], rates: [] as number[] },
      on: { latencies: [] as number[], rates: [] as number[] },
    };
    for (let round = 0; round < 2; round += 1) {
      for (const mode of ["off", "on"] as const) {
        const result = await agentPhase(mode === "on" ? tracingEnv : {});
        modes[mode].latencies.push(...result.latencies);
        modes[mode].rates.push(result.perSecond);
        log(
          `  round ${round + 1}, tracing ${mode}: p50 ${percentile(result.latencies, 50).toFixed(1)} ms, ${result.perSecond.toFixed(1)} runs/s`,
        );
      }
    }
    const summary = (mode: "off" | "on") => ({
      p50: percentile(modes[mode].latencies, 50),
      p95: percentile(modes[mode].latencies, 95),
      perSecond: modes[mode].rates.reduce((a, b) => a + b, 0) / modes[mode].rates.length,
    });
    const off = summary("off");
    const on = summary("on");
    for (const [name, m] of [
      ["tracing off", off],
      ["tracing on", on],
    ] as const) {
      log(
        `  ${name.padEnd(12)} p50 ${m.p50.toFixed(1)} ms, p95 ${m.p95.toFixed(1)} ms; ${m.perSecond.toFixed(1)} runs/s (${CONCURRENCY} at once)`,
      );
    }
    const overhead = on.p50 / off.p50 - 1;
    log(
      `target: p50 with tracing ≤ ${(100 * TARGET_OVERHEAD).toFixed(0)} % slower — ${overhead <= TARGET_OVERHEAD ? "PASS" : "MISS"} (${(100 * overhead).toFixed(1)} %; runs/s ${(100 * (on.perSecond / off.perSecond - 1)).toFixed(1)} %)`,
    );
    const traces = await fetch(`${plane.url}/langsmith-api/sessions?name=agent-bench`, {
      headers: { "x-api-key": KEY },
    });
    const [project] = (await traces.json()) as Array<{ id: string }>;
    if (!project) throw new Error("the traced agent's project is missing: its traces did not arrive");
    log(`traced runs arrived in project agent-bench (${project.id})`);
  } finally {
    await plane.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
