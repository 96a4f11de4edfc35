import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { type BenchClient, benchClients, type ClientKind } from "./http-client.js";
import type { PhaseResult } from "./loops.js";
import type { SoakPlan } from "./plan.js";
import type { RssSample } from "./results.js";
import { createAndJoin } from "./scenarios.js";
import type { RunningServer } from "./servers.js";
import { nowMs, summarize } from "./stats.js";

/** A client stops after this many errors in a row (as in the closed loops): a dead server ends the soak. */
const MAX_CONSECUTIVE_ERRORS = 5;

export interface SoakRun {
  phase: PhaseResult;
  idleRssBytes: number | undefined;
  samples: RssSample[];
}

/**
 * `plan.runs` echo runs (create + join) from `plan.clients` closed-loop clients sharing one run
 * budget, threads rotating every `runsPerThread` runs exactly as in the throughput phases. Each
 * time another `plan.sampleEvery` runs have finished (failed ones included), the server's RSS is
 * read from /proc; the reading happens on the bench's event loop between two runs' completions,
 * with up to `clients - 1` runs in flight.
 */
export async function runSoak(
  server: RunningServer,
  plan: SoakPlan,
  runsPerThread: number,
  progress: (line: string) => void,
  kind: ClientKind = "http",
): Promise<SoakRun> {
  const idleRssBytes = server.rssBytes();
  const latencies: number[] = [];
  const samples: RssSample[] = [];
  let issued = 0;
  let finished = 0;
  let errors = 0;
  let firstError: string | null = null;
  const started = nowMs();
  const deadline = started + plan.maxMs;
  let lastSampleAt = started;
  let lastSampleRuns = 0;

  const sample = () => {
    const now = nowMs();
    const rssBytes = server.rssBytes();
    if (rssBytes === undefined) return;
    const entry: RssSample = {
      runs: finished,
      rssBytes,
      seconds: (now - started) / 1000,
      perSecond: (finished - lastSampleRuns) / ((now - lastSampleAt) / 1000),
    };
    lastSampleAt = now;
    lastSampleRuns = finished;
    samples.push(entry);
    progress(
      `soak: ${finished} runs, RSS ${mb(rssBytes)} MB, ${entry.perSecond.toFixed(0)} runs/s since the last sample, ${errors} errors`,
    );
  };

  const client = async (state: { client: BenchClient; threadId: string; runsOnThread: number }) => {
    let consecutiveErrors = 0;
    while (issued < plan.runs && nowMs() < deadline) {
      issued += 1;
      if (state.runsOnThread >= runsPerThread) {
        state.threadId = randomUUID();
        state.runsOnThread = 0;
      }
      const first = state.runsOnThread === 0;
      state.runsOnThread += 1;
      const t0 = nowMs();
      try {
        await createAndJoin(state.client, plan.graph, state.threadId, first);
        latencies.push(nowMs() - t0);
        consecutiveErrors = 0;
      } catch (error) {
        errors += 1;
        firstError ??=
          error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 300) : String(error);
        consecutiveErrors += 1;
      }
      finished += 1;
      if (finished % plan.sampleEvery === 0) sample();
      if (consecutiveErrors >= MAX_CONSECUTIVE_ERRORS) return;
    }
  };

  const users = benchClients(kind, server.url, plan.clients);
  const states = Array.from({ length: plan.clients }, (_, index) => ({
    client: users.forUser(index),
    threadId: randomUUID(),
    runsOnThread: 0,
  }));
  try {
    await Promise.all(states.map(client));
  } finally {
    await users.close();
  }
  // A soak cut short (time box, dead clients) still gets its last reading.
  if (samples.at(-1)?.runs !== finished) sample();
  const seconds = (nowMs() - started) / 1000;
  return {
    phase: {
      completed: latencies.length,
      errors,
      firstError,
      seconds,
      perSecond: latencies.length / seconds,
      latency: summarize(latencies),
    },
    idleRssBytes,
    samples,
  };
}

/** Total size of the files under `dir` (the server's SQLite database, WAL and shm). */
export function directoryBytes(dir: string): number {
  let total = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += directoryBytes(full);
    else if (entry.isFile()) total += fs.statSync(full).size;
  }
  return total;
}

export function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
