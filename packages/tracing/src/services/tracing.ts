import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { TraceRun } from "../domain/tracing.js";
import type { TracingProject } from "../domain/types.js";
import { BadRequestError, NotFoundError } from "../errors.js";
import type { DeploymentDirectory, IngestSender } from "../ports.js";
import type {
  RunQuery,
  TraceFilter,
  TraceSeries,
  TraceStats,
  TraceSummary,
  TracingStorage,
} from "../storage/types.js";
import { DatasetService } from "./datasets.js";
import { FeedbackService } from "./feedback.js";
import { ProjectAdmin } from "./projects.js";
import { RunViews } from "./run-views.js";

/** Retention of traces, the same for every project. */
export interface TraceRetention {
  /** Runs older than this go (0: kept forever). */
  maxAgeMs: number;
  /** A project's oldest traces go once its runs take more bytes than this (0: no limit). */
  maxProjectBytes: number;
  /** How often the sweep runs. */
  sweepIntervalMs: number;
}

const PROJECT_CACHE_MS = 30_000;
const PROJECT_CACHE_ENTRIES = 10_000;
const MAX_PROJECT_NAME = 1024;

/**
 * Tracing projects and their traces: where ingested runs go (a project by name, created on first
 * use as LangSmith does), queries, deletion, and retention by age and size.
 */
export class TracingService {
  /** tenant + project name (or deployment) → project id; saves a lookup per ingest request. */
  readonly #projects = new Map<string, { id: string; until: number }>();
  #sweeper: NodeJS.Timeout | null = null;
  /** Runs with their roll-ups, costs and feedback, as the read API returns them. */
  readonly views: RunViews;
  /** Projects made and changed through the SDK, and their stats. */
  readonly admin: ProjectAdmin;
  /** Feedback on runs and projects. */
  readonly feedback: FeedbackService;
  /** Datasets and examples. */
  readonly datasets: DatasetService;
  #sweeping: Promise<void> | null = null;

  constructor(
    /** The stores (the SDK routes that are plain reads and writes use them directly). */
    readonly storage: TracingStorage,
    private readonly deployments: DeploymentDirectory,
    private readonly retention: TraceRetention,
    private readonly logger: Logger,
  ) {
    this.views = new RunViews(storage);
    this.admin = new ProjectAdmin(storage, () => this.#projects.clear());
    this.feedback = new FeedbackService(storage.feedback);
    this.datasets = new DatasetService(storage);
  }

  /**
   * The project runs of a request go to: the one named by `session_id` (which must exist) or
   * `session_name` (created when missing); without either, the sender's default (its
   * deployment's project, else "default"). Undefined for a patch that names none (the run keeps
   * the project its post gave it).
   */
  async projectFor(
    sender: IngestSender,
    run: { session_name?: unknown; session_id?: unknown },
    op: "post" | "patch",
  ): Promise<string | undefined> {
    if (typeof run.session_id === "string" && run.session_id !== "") {
      const key = `${sender.tenantId}\u0000id:${run.session_id}`;
      const cached = this.#cached(key);
      if (cached) return cached;
      const project = await this.storage.projects.get(sender.tenantId, run.session_id.toLowerCase());
      if (!project) throw new NotFoundError(`Tracing project ID ${run.session_id.slice(0, 64)} not found.`);
      return this.#remember(key, project.id);
    }
    const name =
      typeof run.session_name === "string" && run.session_name !== "" ? run.session_name : undefined;
    if (name === undefined && op === "patch") return undefined;
    if (name !== undefined && name.length > MAX_PROJECT_NAME) {
      throw new BadRequestError(`session_name is longer than ${MAX_PROJECT_NAME} characters.`);
    }
    if (sender.deploymentId) {
      const key = `${sender.tenantId}\u0000dep:${sender.deploymentId}\u0000${name ?? ""}`;
      const cached = this.#cached(key);
      if (cached) return cached;
      const deploymentName = await this.deployments.nameOf(sender.tenantId, sender.deploymentId);
      if (deploymentName === undefined) {
        throw new NotFoundError("The deployment of this ingest key no longer exists.");
      }
      if (name === undefined || name === deploymentName) {
        const own = await this.storage.projects.ofDeployment(sender.deploymentId);
        if (own) return this.#remember(key, own.id);
        return this.#remember(
          key,
          (await this.#ensure(sender.tenantId, deploymentName, sender.deploymentId)).id,
        );
      }
      return this.#remember(key, (await this.#ensure(sender.tenantId, name, null)).id);
    }
    const projectName = name ?? "default";
    const key = `${sender.tenantId}\u0000name:${projectName}`;
    const cached = this.#cached(key);
    if (cached) return cached;
    return this.#remember(key, (await this.#ensure(sender.tenantId, projectName, null)).id);
  }

  /** The tenant's projects, newest first. */
  listProjects(
    tenantId: string,
    filter: {
      name?: string;
      nameContains?: string;
      ids?: string[];
      referenceDatasetIds?: string[];
      limit: number;
      offset: number;
    },
  ): Promise<TracingProject[]> {
    return this.storage.projects.list(tenantId, filter);
  }

  /** A project of the tenant, or 404. */
  async project(tenantId: string, id: string): Promise<TracingProject> {
    const project = await this.storage.projects.get(tenantId, id);
    if (!project) throw new NotFoundError(`Tracing project ID ${id} not found.`);
    return project;
  }

  /** Deletes a project with all its traces (404 when the tenant has none of this id). */
  async deleteProject(tenantId: string, id: string): Promise<void> {
    if (!(await this.storage.projects.remove(tenantId, id))) {
      throw new NotFoundError(`Tracing project ID ${id} not found.`);
    }
    // Ingest must not keep writing to the removed id: the next run makes the project again.
    this.#projects.clear();
  }

  /** A project's traces (root runs with their trees' totals), newest first. */
  async traces(tenantId: string, projectId: string, filter: TraceFilter): Promise<TraceSummary[]> {
    await this.project(tenantId, projectId);
    const summaries = await this.storage.traces.traces(tenantId, projectId, filter);
    // Each tree's cost: the root's usage rolled up over its model runs, priced.
    const views = await this.views.of(
      tenantId,
      summaries.map((s) => s.root),
    );
    return summaries.map((summary, i) => {
      const usage = views[i]?.usage;
      return usage
        ? {
            ...summary,
            prompt_cost: usage.prompt_cost,
            completion_cost: usage.completion_cost,
            total_cost: usage.total_cost,
          }
        : summary;
    });
  }

  /** Totals of a project's traces started in a window: counts, latency, tokens. */
  async stats(
    tenantId: string,
    projectId: string,
    window: { startAfterMs?: number | undefined; startBeforeMs?: number | undefined },
  ): Promise<TraceStats> {
    await this.project(tenantId, projectId);
    return this.storage.traces.stats(tenantId, projectId, window);
  }

  /** A project's traces per time bucket of a window (charts). */
  async series(
    tenantId: string,
    projectId: string,
    window: { startAfterMs: number; startBeforeMs: number; buckets: number },
  ): Promise<TraceSeries> {
    await this.project(tenantId, projectId);
    return this.storage.traces.series(tenantId, projectId, window);
  }

  /** Every run of a trace of the project, or 404. */
  async trace(tenantId: string, projectId: string, traceId: string): Promise<TraceRun[]> {
    await this.project(tenantId, projectId);
    const runs = (await this.storage.traces.trace(tenantId, traceId)).filter(
      (r) => r.project_id === projectId,
    );
    if (runs.length === 0) throw new NotFoundError(`Trace ${traceId} not found.`);
    return runs;
  }

  /** One run of the tenant, or 404. */
  async run(tenantId: string, id: string): Promise<TraceRun> {
    const run = await this.storage.traces.get(tenantId, id);
    if (!run) throw new NotFoundError(`Run ${id} not found.`);
    return run;
  }

  /** The public links of those of these runs that are shared, by run id. */
  async shareUrls(tenantId: string, runs: TraceRun[], origin: string): Promise<Map<string, string>> {
    const urls = new Map<string, string>();
    for (const run of runs) {
      const share = await this.storage.shares.ofRun(tenantId, run.id);
      if (share) urls.set(run.id, `${origin}/public/${share.share_token}/r`);
    }
    return urls;
  }

  /** Runs of the tenant matching a LangSmith query. */
  queryRuns(tenantId: string, query: RunQuery): Promise<TraceRun[]> {
    return this.storage.traces.query(tenantId, query);
  }

  /** Starts the periodic retention sweep. */
  start(): void {
    if (this.#sweeper || this.retention.sweepIntervalMs <= 0) return;
    this.#sweeper = setInterval(() => {
      this.#sweeping ??= this.sweep()
        .then(() => undefined)
        .catch((err) => this.logger.warn({ err }, "tracing: the retention sweep failed"))
        .finally(() => {
          this.#sweeping = null;
        });
    }, this.retention.sweepIntervalMs);
    this.#sweeper.unref?.();
  }

  /** Stops the sweep (waits for one in progress). */
  async stop(): Promise<void> {
    if (this.#sweeper) clearInterval(this.#sweeper);
    this.#sweeper = null;
    await this.#sweeping;
  }

  /**
   * Applies retention once: runs of deleted projects and runs past the age limit go, then each
   * project's oldest traces until it fits.
   */
  async sweep(now = Date.now()): Promise<{ removed: number }> {
    // Runs an ingest request wrote to a project deleted meanwhile (its id was still cached).
    let removed = await this.storage.traces.removeOrphans();
    if (this.retention.maxAgeMs > 0)
      removed += await this.storage.traces.removeOlderThan(now - this.retention.maxAgeMs);
    if (this.retention.maxProjectBytes > 0) {
      for (const project of await this.storage.traces.projectSizes()) {
        let { bytes, runs } = project;
        // Bounded rounds, each removing a share of the project's traces (oldest first).
        for (let round = 0; round < 50 && bytes > this.retention.maxProjectBytes && runs > 0; round++) {
          const share = Math.max(1, Math.ceil(((bytes - this.retention.maxProjectBytes) / bytes) * runs));
          const gone = await this.storage.traces.removeOldestTraces(
            project.project_id,
            Math.min(share, 1000),
          );
          if (gone === 0) break;
          removed += gone;
          const after = (await this.storage.traces.projectSizes()).find(
            (p) => p.project_id === project.project_id,
          );
          bytes = after?.bytes ?? 0;
          runs = after?.runs ?? 0;
        }
      }
    }
    // Feedback and share links of runs that are gone go with them.
    await this.storage.feedback.removeOrphans();
    await this.storage.shares.removeOrphans();
    if (removed > 0) this.logger.info({ removed }, "tracing: retention removed runs");
    return { removed };
  }

  async #ensure(tenantId: string, name: string, deploymentId: string | null): Promise<TracingProject> {
    return this.storage.projects.ensure({
      id: randomUUID(),
      tenant_id: tenantId,
      name,
      deployment_id: deploymentId,
      created_at: new Date().toISOString(),
    });
  }

  #cached(key: string): string | undefined {
    const hit = this.#projects.get(key);
    return hit && hit.until > Date.now() ? hit.id : undefined;
  }

  #remember(key: string, id: string): string {
    if (this.#projects.size >= PROJECT_CACHE_ENTRIES) this.#projects.clear();
    this.#projects.set(key, { id, until: Date.now() + PROJECT_CACHE_MS });
    return id;
  }
}
