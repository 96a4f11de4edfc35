import { type LatencySummary, nowMs, summarize } from "./stats.js";

/** What one measured phase produced; errors are counted, never retried, so they stay visible. */
export interface PhaseResult {
  completed: number;
  errors: number;
  firstError: string | null;
  /** Wall time of the phase, from the first start to the last in-flight operation's end. */
  seconds: number;
  /** completed / seconds. */
  perSecond: number;
  /** Per-operation latency of the timed part. */
  latency: LatencySummary;
}

export interface LoopLimits {
  /** Operations each client performs at most. */
  perClient: number;
  /** No client starts a new operation after this long (in-flight ones still finish and count). */
  maxMs: number;
}

/** A client stops after this many errors in a row: a dead server should end the phase, not spin. */
const MAX_CONSECUTIVE_ERRORS = 5;
const PROGRESS_EVERY_MS = 5_000;

/**
 * `clients` closed-loop clients, each with its own state from `setup` (untimed), repeating
 * `prepare` (untimed, e.g. a fresh thread) then `measure` (timed) until its limits are reached.
 */
export async function closedLoop<C, P>(args: {
  clients: number;
  limits: LoopLimits;
  setup: (index: number) => Promise<C>;
  prepare?: (client: C) => Promise<P>;
  measure: (client: C, prepared: P | undefined) => Promise<void>;
  progress?: (line: string) => void;
}): Promise<PhaseResult> {
  const { clients, limits, setup, prepare, measure, progress } = args;
  const states = await Promise.all(Array.from({ length: clients }, (_, i) => setup(i)));
  const samples: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  const started = nowMs();
  const deadline = started + limits.maxMs;
  const ticker = progress
    ? setInterval(() => progress(`… ${samples.length} done, ${errors} errors`), PROGRESS_EVERY_MS)
    : undefined;

  const client = async (state: C) => {
    let consecutiveErrors = 0;
    for (let i = 0; i < limits.perClient && nowMs() < deadline; i += 1) {
      try {
        const prepared = prepare ? await prepare(state) : undefined;
        const t0 = nowMs();
        await measure(state, prepared);
        samples.push(nowMs() - t0);
        consecutiveErrors = 0;
      } catch (error) {
        errors += 1;
        firstError ??= describeError(error);
        consecutiveErrors += 1;
        if (consecutiveErrors >= MAX_CONSECUTIVE_ERRORS) return;
      }
    }
  };

  try {
    await Promise.all(states.map(client));
  } finally {
    clearInterval(ticker);
  }
  const seconds = (nowMs() - started) / 1000;
  return {
    completed: samples.length,
    errors,
    firstError,
    seconds,
    perSecond: samples.length / seconds,
    latency: summarize(samples),
  };
}

function describeError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
