/** How long a run's end is remembered, with its held events, for a listener that arrives late. */
const ENDED_MEMORY_MS = 5_000;
/** How long an interest heard before the run started executing here is remembered. */
const HEARD_MEMORY_MS = 60_000;
/** Bounds of the bookkeeping (executions of this process, interests heard, runs declared here). */
const EXECUTIONS_MAX = 10_000;
const HEARD_MAX = 10_000;
const DECLARED_MAX = 10_000;
/** Events held per quiet run at most (the oldest go first, as the log's cap drops them). */
const HELD_MAX = 1_000;

/** An event held, or what produces some when they are needed. */
export type HeldEvent =
  | { event: string; data: unknown }
  | { produce: () => Array<{ event: string; data: unknown }> };

/** A run this process executes without a replay log (not resumable). */
export interface QuietExecution {
  /** `asking`: whether anyone listens is not known yet; `quiet`: nobody did; `forward`: to Redis. */
  mode: "asking" | "quiet" | "forward";
  /**
   * Events (and the end, `data` undefined) published while not forwarding, in order; `produce`
   * for those published lazily (see StreamBroker.publishLazily).
   */
  held: Array<HeldEvent>;
  ended: boolean;
}

/**
 * What the Redis broker knows of runs that need not reach Redis: the non-resumable runs this
 * process executes while nobody listens (their events are held, not sent), the listeners other
 * processes announced, and the runs declared here at creation. Bounded; no timers.
 */
export class QuietRuns {
  readonly executions = new Map<string, QuietExecution>();
  private readonly endedAt: Array<{ runId: string; at: number; execution: QuietExecution }> = [];
  private readonly heard = new Map<string, number>();
  /** Runs created in this process: whether each is resumable, and when. */
  private readonly declared = new Map<string, { resumable: boolean; at: number }>();

  start(runId: string): QuietExecution {
    this.prune(Date.now());
    const execution: QuietExecution = { mode: "asking", held: [], ended: false };
    this.executions.delete(runId);
    this.executions.set(runId, execution);
    for (const oldest of this.executions.keys()) {
      if (this.executions.size <= EXECUTIONS_MAX) break;
      this.executions.delete(oldest);
    }
    return execution;
  }

  hold(execution: QuietExecution, held: HeldEvent): void {
    execution.held.push(held);
    if (execution.held.length <= HELD_MAX) return;
    const dropped = execution.held.shift();
    // Produced all the same (its events dropped): a producer may depend on those before it.
    if (dropped && "produce" in dropped) dropped.produce();
  }

  /** The run ended while not forwarding: kept a few seconds for a listener on its way. */
  ended(runId: string, execution: QuietExecution): void {
    execution.ended = true;
    this.endedAt.push({ runId, at: Date.now(), execution });
  }

  /** Someone listens to `runId` (announced by any process). */
  hear(runId: string): void {
    const now = Date.now();
    this.prune(now);
    this.heard.delete(runId);
    this.heard.set(runId, now + HEARD_MEMORY_MS);
    for (const oldest of this.heard.keys()) {
      if (this.heard.size <= HEARD_MAX) break;
      this.heard.delete(oldest);
    }
  }

  wasHeard(runId: string): boolean {
    return (this.heard.get(runId) ?? 0) > Date.now();
  }

  declare(runId: string, resumable: boolean): void {
    this.declared.delete(runId);
    this.declared.set(runId, { resumable, at: Date.now() });
    for (const oldest of this.declared.keys()) {
      if (this.declared.size <= DECLARED_MAX) break;
      this.declared.delete(oldest);
    }
  }

  /**
   * Created here, not resumable, so recently that every listener since was announced within the
   * time `heard` keeps announcements: nobody listens unless `wasHeard` says so.
   */
  declaredQuietSince(runId: string): boolean {
    const declared = this.declared.get(runId);
    return declared?.resumable === false && Date.now() - declared.at < HEARD_MEMORY_MS / 2;
  }

  /** Executions not forwarding (to check again after a reconnect, when announcements may be lost). */
  notForwarding(): Array<[string, QuietExecution]> {
    return [...this.executions].filter(([, e]) => e.mode !== "forward");
  }

  private prune(now: number): void {
    while (this.endedAt.length > 0 && (this.endedAt[0]?.at ?? now) + ENDED_MEMORY_MS < now) {
      const gone = this.endedAt.shift();
      if (gone && this.executions.get(gone.runId) === gone.execution) this.executions.delete(gone.runId);
    }
    for (const [runId, expiry] of this.heard) {
      if (expiry > now) break;
      this.heard.delete(runId);
    }
  }
}
