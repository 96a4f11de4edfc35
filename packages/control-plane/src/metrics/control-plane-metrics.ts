import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { REVISION_STATUSES } from "../domain/revision-status.js";

/** Where the gauges read from at scrape time. */
export interface ControlPlaneProbe {
  /** Trace run operations waiting in the ingest queue. */
  traceQueueDepth?(): number;
  /** Revisions in each status, across workspaces. */
  revisionsByStatus(): Promise<Record<string, number>>;
  /** Agent server processes this control plane runs now. */
  agentProcesses(): number;
}

/**
 * The control plane's Prometheus metrics (prefix `berth_cp_`): requests by route and status,
 * revisions by status, build and deploy durations, agent processes up. Aggregates only (no names
 * or ids), one registry per instance.
 */
export class ControlPlaneMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<"method" | "route" | "status">;
  private readonly requestSeconds: Histogram<"method" | "route">;
  private readonly stepSeconds: Histogram<"step" | "outcome">;
  private readonly traceRuns: Counter<"outcome">;

  constructor(probe: ControlPlaneProbe) {
    this.requests = new Counter({
      name: "berth_cp_http_requests_total",
      help: "HTTP requests answered, by method, route pattern and status code",
      labelNames: ["method", "route", "status"],
      registers: [this.registry],
    });
    this.requestSeconds = new Histogram({
      name: "berth_cp_http_request_duration_seconds",
      help: "Time to answer an HTTP request, by method and route pattern",
      labelNames: ["method", "route"],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30],
      registers: [this.registry],
    });
    this.stepSeconds = new Histogram({
      name: "berth_cp_revision_step_duration_seconds",
      help: "Duration of a revision's build or deploy, by outcome",
      labelNames: ["step", "outcome"],
      buckets: [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 900],
      registers: [this.registry],
    });
    new Gauge({
      name: "berth_cp_revisions",
      help: "Revisions in each status",
      labelNames: ["status"],
      registers: [this.registry],
      async collect() {
        const counts = await probe.revisionsByStatus();
        for (const status of REVISION_STATUSES) this.set({ status }, counts[status] ?? 0);
      },
    });
    this.traceRuns = new Counter({
      name: "berth_cp_trace_runs_total",
      help: "Trace run operations received by the ingest API: accepted, written, dropped_queue_full and dropped_write_failed (refused: the client was answered 503/507 and may send again)",
      labelNames: ["outcome"],
      registers: [this.registry],
    });
    new Gauge({
      name: "berth_cp_trace_queue_runs",
      help: "Trace run operations waiting in the ingest queue",
      registers: [this.registry],
      collect() {
        this.set(probe.traceQueueDepth?.() ?? 0);
      },
    });
    new Gauge({
      name: "berth_cp_agent_processes",
      help: "Agent server processes up (local runtime)",
      registers: [this.registry],
      collect() {
        this.set(probe.agentProcesses());
      },
    });
  }

  /** Records an answered request (`route` is the pattern, so label values stay few). */
  request(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.requestSeconds.observe({ method, route }, seconds);
  }

  /** Records a finished build or deploy. */
  step(step: "build" | "deploy", outcome: "success" | "failure", seconds: number): void {
    this.stepSeconds.observe({ step, outcome }, seconds);
  }

  /** Trace runs the ingest queue took. */
  traceRunsAccepted(count: number): void {
    this.traceRuns.inc({ outcome: "accepted" }, count);
  }

  /** Trace runs refused (503/507 to the client): the queue was full, or their batch could not be written. */
  traceRunsDropped(reason: "queue_full" | "write_failed", count: number): void {
    this.traceRuns.inc({ outcome: `dropped_${reason}` }, count);
  }

  /** Trace runs written to the database. */
  traceRunsWritten(count: number): void {
    this.traceRuns.inc({ outcome: "written" }, count);
  }

  /** The Prometheus text exposition. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
