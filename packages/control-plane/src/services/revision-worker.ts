import type { Logger } from "pino";
import { runsOnListener } from "../domain/deployment.js";
import { redactError, secretRedactor } from "../domain/redact.js";
import type { RevisionStatus } from "../domain/revision-status.js";
import type { Deployment, Revision } from "../domain/types.js";
import type { ControlPlaneMetrics } from "../metrics/control-plane-metrics.js";
import { type DeploymentRuntime, type RevisionJob, RuntimeFailure } from "../runtime/types.js";
import type { ControlPlaneStorage } from "../storage/types.js";
import type { KeyedMutex } from "./mutex.js";
import { RevisionLogWriter } from "./revision-log.js";

/** Statuses in which a revision has runtime work to do (or under way). */
const WORKING: readonly RevisionStatus[] = ["AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING"];

/** The URL a deployment's agent is reached at (the control plane's proxy). */
export type AgentUrl = (deploymentId: string) => string;

interface Job {
  revisionId: string;
  controller: AbortController;
  done: Promise<void>;
}

/**
 * Moves revisions through BUILDING and DEPLOYING with a runtime doing the real work: one job per
 * deployment at a time, each status change a compare-and-set so an interrupt or a newer revision
 * wins over a job still running (the job is then aborted).
 */
export class RevisionWorker {
  readonly #jobs = new Map<string, Job>();
  readonly #writers = new Map<string, RevisionLogWriter>();
  #closed = false;

  constructor(
    private readonly storage: ControlPlaneStorage,
    readonly runtime: DeploymentRuntime,
    private readonly locks: KeyedMutex,
    private readonly agentUrl: AgentUrl,
    private readonly logger: Logger,
    private readonly kick: () => void,
    private readonly metrics?: ControlPlaneMetrics,
  ) {}

  /** Brings back the running revision of every deployment (after a control plane start). */
  async restore(): Promise<void> {
    for (const deployment of await this.storage.deployments.listByStatus("READY")) {
      if (!deployment.active_revision_id || runsOnListener(deployment)) continue;
      const revision = await this.storage.revisions.get(
        deployment.tenant_id,
        deployment.id,
        deployment.active_revision_id,
      );
      if (!revision) continue;
      const job = this.#job(deployment, revision, new AbortController().signal);
      try {
        await this.runtime.restore(job);
      } catch (error) {
        job.log("deploy", "ERROR", `Could not bring the agent server back: ${(error as Error).message}`);
        const redact = secretRedactor(revision.secrets.map((secret) => secret.value));
        this.logger.error(
          { err: redactError(error, redact), deploymentId: deployment.id },
          "could not restore deployment",
        );
      }
    }
  }

  /** Aborts jobs whose revision stopped being worked on, and starts jobs for revisions that wait. */
  async reconcile(): Promise<void> {
    if (this.#closed) return;
    for (const [deploymentId, job] of this.#jobs) {
      const statuses = await this.storage.revisions.statusesOf(deploymentId);
      const status = statuses.find((s) => s.id === job.revisionId)?.status;
      if (!status || !WORKING.includes(status))
        job.controller.abort(new Error(`revision is ${status ?? "gone"}`));
    }
    for (const revision of await this.storage.revisions.listInStatus(WORKING)) {
      if (this.#jobs.has(revision.deployment_id)) continue;
      const deployment = await this.storage.deployments.get(revision.tenant_id, revision.deployment_id);
      // A listener's revisions are its own to deploy (it reports their progress).
      if (deployment?.status !== "READY" || runsOnListener(deployment)) continue;
      const controller = new AbortController();
      const done = this.#run(deployment, revision, controller.signal).finally(() => {
        this.#jobs.delete(deployment.id);
        this.kick();
      });
      this.#jobs.set(deployment.id, { revisionId: revision.id, controller, done });
    }
  }

  /** Stops the deployment's job and its processes, and removes its runtime files. */
  async remove(deploymentId: string): Promise<void> {
    const job = this.#jobs.get(deploymentId);
    job?.controller.abort(new Error("deployment deleted"));
    await job?.done;
    await this.runtime.remove(deploymentId);
  }

  /** Aborts running jobs (their revisions resume after the next start) and stops the runtime. */
  async close(): Promise<void> {
    this.#closed = true;
    const jobs = [...this.#jobs.values()];
    for (const job of jobs) job.controller.abort(new Error("control plane stopping"));
    await Promise.all(jobs.map((job) => job.done));
    await this.runtime.close();
    await Promise.all([...this.#writers.values()].map((writer) => writer.flush()));
  }

  async #run(deployment: Deployment, initial: Revision, signal: AbortSignal): Promise<void> {
    let revision = initial;
    const job = this.#job(deployment, revision, signal);
    const now = () => new Date().toISOString();
    const move = async (from: RevisionStatus, to: RevisionStatus) => {
      const moved = await this.storage.revisions.setStatus(revision.id, from, to, now());
      if (moved) {
        revision = { ...revision, status: to };
        job.revision = revision;
        this.logger.info(
          { deploymentId: deployment.id, revisionId: revision.id, status: to },
          "revision advanced",
        );
      }
      return moved;
    };
    // When the current step (build or deploy) started, for its duration metric.
    let stepStarted = Date.now();
    const stepSeconds = () => (Date.now() - stepStarted) / 1000;
    try {
      if (revision.status === "AWAITING_BUILD" && !(await move("AWAITING_BUILD", "BUILDING"))) return;
      if (revision.status === "BUILDING") {
        job.log("build", "INFO", `Build of revision ${revision.id} started`);
        stepStarted = Date.now();
        const result = await this.runtime.build(job);
        this.metrics?.step("build", "success", stepSeconds());
        if (result.commitSha) await this.#recordCommit(deployment, revision, result.commitSha);
        if (result.commitSha) {
          revision = {
            ...revision,
            source_revision_config: { ...revision.source_revision_config, repo_commit_sha: result.commitSha },
          };
          job.revision = revision;
        }
        if (!(await move("BUILDING", "AWAITING_DEPLOY"))) return;
      }
      if (revision.status === "AWAITING_DEPLOY" && !(await move("AWAITING_DEPLOY", "DEPLOYING"))) return;
      if (revision.status !== "DEPLOYING") return;
      job.log("deploy", "INFO", `Deploying revision ${revision.id}`);
      stepStarted = Date.now();
      await this.runtime.deploy(job);
      this.metrics?.step("deploy", "success", stepSeconds());
      if (!(await move("DEPLOYING", "DEPLOYED"))) {
        job.log(
          "deploy",
          "WARNING",
          "The revision was interrupted as it became healthy; it serves until the next one.",
        );
      }
      await this.locks.run(deployment.id, async () => {
        const current = await this.storage.deployments.get(deployment.tenant_id, deployment.id);
        if (!current) return;
        await this.storage.deployments.save({
          ...current,
          active_revision_id: revision.id,
          source_config: { ...current.source_config, custom_url: this.agentUrl(deployment.id) },
          updated_at: now(),
        });
      });
      job.log("deploy", "INFO", `Revision ${revision.id} is DEPLOYED at ${this.agentUrl(deployment.id)}`);
    } catch (error) {
      if (signal.aborted) {
        job.log(
          revision.status === "DEPLOYING" ? "deploy" : "build",
          "WARNING",
          `Stopped: ${reason(signal)}.`,
        );
        return;
      }
      const deploying = revision.status === "DEPLOYING";
      const message =
        error instanceof RuntimeFailure
          ? error.message
          : `Unexpected error: ${(error as Error).message ?? error}`;
      if (!(error instanceof RuntimeFailure)) {
        const redact = secretRedactor(revision.secrets.map((secret) => secret.value));
        this.logger.error(
          { err: redactError(error, redact), revisionId: revision.id },
          "revision work failed unexpectedly",
        );
      }
      job.log(deploying ? "deploy" : "build", "ERROR", message);
      this.metrics?.step(deploying ? "deploy" : "build", "failure", stepSeconds());
      // The operator's console says why, not only the revision's log (messages are redacted there).
      this.logger.error(
        {
          deploymentId: deployment.id,
          revisionId: revision.id,
          status: deploying ? "DEPLOY_FAILED" : "BUILD_FAILED",
          reason: secretRedactor(revision.secrets.map((secret) => secret.value))(message),
        },
        deploying ? "revision DEPLOY_FAILED" : "revision BUILD_FAILED",
      );
      if (error instanceof RuntimeFailure && error.commitSha) {
        await this.#recordCommit(deployment, revision, error.commitSha);
      }
      await move(revision.status, deploying ? "DEPLOY_FAILED" : "BUILD_FAILED");
    } finally {
      await this.#writers.get(revision.id)?.flush();
      // A serving revision's agent keeps logging; the others are done.
      if (revision.status !== "DEPLOYED") this.#writers.delete(revision.id);
    }
  }

  /** Records the commit on the revision (and on the deployment, whose copy shows its latest revision). */
  async #recordCommit(deployment: Deployment, revision: Revision, sha: string): Promise<void> {
    const config = { ...revision.source_revision_config, repo_commit_sha: sha };
    const now = new Date().toISOString();
    await this.storage.revisions.setSourceRevisionConfig(revision.id, config, now);
    await this.locks.run(deployment.id, async () => {
      const current = await this.storage.deployments.get(deployment.tenant_id, deployment.id);
      if (current?.latest_revision_id !== revision.id) return;
      await this.storage.deployments.save({ ...current, source_revision_config: config, updated_at: now });
    });
  }

  /** A job for the runtime, with the revision's log writer (kept: a serving agent keeps logging). */
  #job(deployment: Deployment, revision: Revision, signal: AbortSignal): RevisionJob {
    let writer = this.#writers.get(revision.id);
    if (!writer) {
      writer = new RevisionLogWriter(
        this.storage.logs,
        { tenant_id: revision.tenant_id, deployment_id: revision.deployment_id, revision_id: revision.id },
        this.logger,
      );
      this.#writers.set(revision.id, writer);
    }
    // Every line of the revision's logs (build and agent output, errors) loses its secret values.
    const redact = secretRedactor(revision.secrets.map((secret) => secret.value));
    const log = writer.log;
    return { deployment, revision, log: (type, level, message) => log(type, level, redact(message)), signal };
  }
}

function reason(signal: AbortSignal): string {
  const value: unknown = signal.reason;
  return value instanceof Error ? value.message : String(value ?? "aborted");
}
