import fs from "node:fs";
import path from "node:path";
import type { Logger } from "pino";
import { hasArtifact, runsOnListener } from "../domain/deployment.js";
import { isInProgress, planAdvance } from "../domain/revision-status.js";
import type { Revision } from "../domain/types.js";
import type { ControlPlaneStorage } from "../storage/types.js";
import type { RevisionWorker } from "./revision-worker.js";

/** What a revision's log says when it reaches a status (without a runtime, it stops there). */
const WAITING_MESSAGES: Record<string, string> = {
  QUEUED: "Revision queued behind another revision of this deployment.",
  AWAITING_BUILD:
    "Waiting for a builder: this control plane has no runtime that builds revisions yet, so the revision stays here.",
  AWAITING_DEPLOY:
    "Waiting for a runtime: this control plane has no runtime that runs revisions yet, so the revision stays here.",
};

/**
 * Advances statuses as far as real work allows, and no further:
 * - a deployment is READY once its database exists — for the embedded default, its data
 *   directory `<dataDir>/deployments/<id>` (where its agent server keeps its SQLite files);
 * - a waiting revision moves to QUEUED / AWAITING_BUILD / AWAITING_DEPLOY (pure plan in
 *   domain/revision-status.ts) and stops there: no builder or runtime exists yet to go on;
 * - a deployment in AWAITING_DELETE loses its data directory, then its rows (and its tracing
 *   project when asked).
 * One pass at a time; a kick during a pass schedules another. A timer retries failed work.
 */
export class Provisioner {
  #running: Promise<void> | null = null;
  #again = false;
  #timer: NodeJS.Timeout | null = null;
  #stopped = true;

  #worker: RevisionWorker | null = null;
  #restored = false;

  constructor(
    private readonly storage: ControlPlaneStorage,
    private readonly deploymentsDir: string,
    private readonly logger: Logger,
  ) {}

  /** Hands revisions past AWAITING_* to a runtime (without one they wait there, honestly). */
  useWorker(worker: RevisionWorker): void {
    this.#worker = worker;
  }

  /** Starts the retry timer and runs a first pass (recovery after a restart). */
  start(intervalMs: number): void {
    this.#stopped = false;
    this.#timer = setInterval(() => this.kick(), intervalMs);
    this.#timer.unref();
    this.kick();
  }

  /** Stops the timer and waits for the pass under way. */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#stopped = true;
    this.#again = false;
    await this.#running;
    await this.#worker?.close();
  }

  /** Asks for a pass soon (ignored while stopped). */
  kick(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#loop().finally(() => {
      this.#running = null;
    });
  }

  /** Resolves when no pass is running or scheduled (tests). */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false;
      try {
        await this.#pass();
      } catch (error) {
        this.logger.error({ err: error }, "provisioner pass failed; retrying on the next tick");
      }
    } while (this.#again);
  }

  async #pass(): Promise<void> {
    if (this.#worker && !this.#restored) {
      // First pass after a start: running deployments come back before new work begins.
      this.#restored = true;
      await this.#worker.restore();
    }
    const runtime = this.#worker?.runtime;
    const now = () => new Date().toISOString();
    for (const deployment of await this.storage.deployments.listByStatus("AWAITING_DATABASE")) {
      fs.mkdirSync(path.join(this.deploymentsDir, deployment.id), { recursive: true });
      if (await this.storage.deployments.setStatus(deployment.id, "AWAITING_DATABASE", "READY", now())) {
        this.logger.info({ deploymentId: deployment.id }, "deployment database ready");
      }
    }
    for (const revision of await this.storage.revisions.listWaiting()) {
      const deployment = await this.storage.deployments.get(revision.tenant_id, revision.deployment_id);
      if (!deployment) continue;
      // A listener's deployment is deployed by the listener, whatever the local runtime supports.
      const onListener = runsOnListener(deployment);
      const unsupported = onListener ? null : (runtime?.unsupportedReason(revision.source) ?? null);
      if (unsupported) {
        if (await this.storage.revisions.setStatus(revision.id, revision.status, "CREATE_FAILED", now())) {
          await this.#log(revision, "build", "ERROR", unsupported);
        }
        continue;
      }
      const others = await this.storage.revisions.statusesOf(deployment.id);
      const next = planAdvance({
        status: revision.status,
        source: revision.source,
        hasArtifact: hasArtifact(revision.source, revision.source_revision_config, deployment.source_config),
        databaseReady: deployment.status === "READY",
        blocked: others.some((o) => o.id !== revision.id && isInProgress(o.status)),
      });
      if (next && (await this.storage.revisions.setStatus(revision.id, revision.status, next, now()))) {
        const message =
          onListener && next === "AWAITING_DEPLOY"
            ? `Waiting for listener ${deployment.source_config.listener_id} to deploy this revision.`
            : runtime
              ? `Revision is ${next}.`
              : (WAITING_MESSAGES[next] ?? `Revision is ${next}.`);
        await this.#log(revision, next === "AWAITING_DEPLOY" ? "deploy" : "build", "INFO", message);
        this.logger.info(
          { deploymentId: deployment.id, revisionId: revision.id, status: next },
          "revision advanced",
        );
      }
    }
    for (const status of ["AWAITING_DELETE", "AWAITING_FINAL_DELETE"] as const) {
      for (const deployment of await this.storage.deployments.listByStatus(status)) {
        if (status === "AWAITING_DELETE") {
          await this.storage.deployments.setStatus(deployment.id, status, "AWAITING_FINAL_DELETE", now());
        }
        await this.#worker?.remove(deployment.id);
        fs.rmSync(path.join(this.deploymentsDir, deployment.id), { recursive: true, force: true });
        await this.storage.deployments.remove(deployment.id, deployment.delete_tracing_project);
        this.logger.info({ deploymentId: deployment.id }, "deployment deleted");
      }
    }
    await this.#worker?.reconcile();
  }

  async #log(revision: Revision, type: "build" | "deploy", level: string, message: string): Promise<void> {
    await this.storage.logs.append([
      {
        tenant_id: revision.tenant_id,
        deployment_id: revision.deployment_id,
        revision_id: revision.id,
        type,
        timestamp: Date.now(),
        level,
        message,
      },
    ]);
  }
}
