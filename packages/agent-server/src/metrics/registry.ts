import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** Where the queue gauges read from at scrape time. */
export interface QueueProbe {
  /** Runs waiting in the queue (all processes: from the database). */
  pendingRuns(): Promise<number>;
  /** Runs this process is executing now. */
  runningRuns(): number;
  /** Runs this process may execute at once. */
  capacity(): number;
}

/**
 * The agent server's Prometheus metrics (prefix `lg_api_`, as the official server's): queue
 * depth, running runs, worker capacity, finished runs by status and run duration. One registry per
 * server instance, never the library's global one.
 */
export class AgentServerMetrics {
  readonly registry = new Registry();
  private readonly runsFinished: Counter<"status">;
  private readonly runDuration: Histogram<"status">;

  constructor(probe: QueueProbe) {
    new Gauge({
      name: "lg_api_num_pending_runs",
      help: "Runs waiting in the queue",
      registers: [this.registry],
      async collect() {
        this.set(await probe.pendingRuns());
      },
    });
    new Gauge({
      name: "lg_api_num_running_runs",
      help: "Runs executing in this process",
      registers: [this.registry],
      collect() {
        this.set(probe.runningRuns());
      },
    });
    new Gauge({
      name: "lg_api_workers_max",
      help: "Runs this process may execute at once",
      registers: [this.registry],
      collect() {
        this.set(probe.capacity());
      },
    });
    this.runsFinished = new Counter({
      name: "lg_api_runs_finished_total",
      help: "Runs that reached a terminal status, by status",
      labelNames: ["status"],
      registers: [this.registry],
    });
    this.runDuration = new Histogram({
      name: "lg_api_run_duration_seconds",
      help: "Wall time of a run's attempt, from its start to its end",
      labelNames: ["status"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [this.registry],
    });
  }

  /** Records a finished run attempt. */
  runFinished(status: string, seconds: number): void {
    this.runsFinished.inc({ status });
    this.runDuration.observe({ status }, seconds);
  }

  /** The Prometheus text exposition. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
