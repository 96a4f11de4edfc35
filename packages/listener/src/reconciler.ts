import { createHash } from "node:crypto";
import { inClusterUrl, LABELS, objectName } from "./names.js";
import { renderRevision, toPrune } from "./render.js";
import { judgeRollout } from "./rollout.js";
import { ObjectGuard, RefusedError } from "./takeover.js";
import {
  type ClusterPort,
  type ControlPlanePort,
  type DesiredDeployment,
  type DesiredRevisionState,
  type DesiredState,
  type KubeObject,
  type ListenerLogger,
  MANAGED_KINDS,
  type RenderOptions,
} from "./types.js";

/** How many of a failing container's last log lines go to the deploy log. */
const LOG_TAIL_LINES = 20;

/** What the reconciler needs to know about its listener. */
export interface ReconcilerOptions {
  listenerId: string;
  /** The namespaces this listener may act in; empty: any (cluster-wide lists and deletes). */
  namespaces: readonly string[];
  /**
   * How long an applied render is trusted before it is applied again (drift made by hand is
   * corrected then); default ten minutes.
   */
  reapplyMs?: number;
  /** Images and pull secrets of the in-cluster Postgres and Redis (default: the official images). */
  render?: RenderOptions;
}

const REAPPLY_MS = 10 * 60_000;

/**
 * Turns the control plane's desired state into cluster objects, one pass at a time:
 * - each deployment's revision is rendered and server-side applied (again only when the render
 *   changed, after a restart, or every `reapplyMs` to undo drift), then objects of the deployment
 *   that the render no longer holds are pruned;
 * - a revision being deployed is reported DEPLOYING, then DEPLOYED once its API Deployment's new
 *   ReplicaSet is available, or DEPLOY_FAILED with the pod's reason and its last log lines; the
 *   control plane then asks for the serving revision again, whose apply rolls the cluster back;
 * - objects this listener made for a deployment that is no longer assigned to it are deleted.
 * Errors of one deployment do not stop the others.
 */
export class Reconciler {
  /** Deployment id → the revision and render digest last applied, and when (skips re-applying each poll). */
  readonly #applied = new Map<string, { digest: string; at: number }>();
  readonly #guard: ObjectGuard;

  constructor(
    private readonly cluster: ClusterPort,
    private readonly controlPlane: ControlPlanePort,
    private readonly options: ReconcilerOptions,
    private readonly logger: ListenerLogger,
  ) {
    this.#guard = new ObjectGuard(cluster);
  }

  /** One reconcile pass over a desired state. */
  async pass(state: DesiredState): Promise<void> {
    for (const deployment of state.deployments) {
      if (!deployment.revision) continue;
      try {
        await this.#deployment(deployment, deployment.revision);
      } catch (error) {
        this.logger.error(
          { deploymentId: deployment.deployment_id, err: message(error) },
          "could not reconcile deployment",
        );
      }
    }
    await this.#deleteUnassigned(new Set(state.deployments.map((d) => d.deployment_id)));
  }

  async #deployment(d: DesiredDeployment, rev: DesiredRevisionState): Promise<void> {
    const served = this.options.namespaces;
    const active = rev.status === "AWAITING_DEPLOY" || rev.status === "DEPLOYING";
    if (served.length > 0 && !served.includes(d.namespace)) {
      if (active) {
        await this.#fail(
          d,
          rev,
          `namespace '${d.namespace}' is not one this listener serves (${served.join(", ")})`,
        );
      }
      return;
    }
    if (rev.status === "AWAITING_DEPLOY") {
      if (!(await this.controlPlane.report(d.deployment_id, rev.revision_id, { status: "DEPLOYING" })))
        return;
      rev = { ...rev, status: "DEPLOYING" };
    }
    const objects = renderRevision(rev, this.options.render).map((o) => this.#own(o));
    const digest = `${rev.revision_id}:${createHash("sha256").update(JSON.stringify(objects)).digest("hex")}`;
    const last = this.#applied.get(d.deployment_id);
    const reapply = this.options.reapplyMs ?? REAPPLY_MS;
    if (last?.digest !== digest || Date.now() - last.at >= reapply) {
      try {
        // Each object is read first: one that another deployment (or no Berth deployment) owns is
        // refused, never taken over; a StatefulSet whose claim size changed is handled as
        // Kubernetes allows (takeover.ts).
        for (const object of objects) {
          const ready = await this.#guard.prepare(object, d.deployment_id);
          for (const line of ready.log) {
            this.logger.info({ deploymentId: d.deployment_id, revisionId: rev.revision_id }, line);
            if (rev.status === "DEPLOYING") {
              await this.controlPlane.appendLogs(d.deployment_id, rev.revision_id, [
                { level: "INFO", message: line },
              ]);
            }
          }
          await this.cluster.apply(ready.object);
        }
      } catch (error) {
        if (rev.status === "DEPLOYING")
          await this.#fail(
            d,
            rev,
            error instanceof RefusedError
              ? message(error)
              : `the cluster refused an object: ${message(error)}`,
          );
        else throw error;
        return;
      }
      const pruned = await this.#prune(d, objects);
      this.#applied.set(d.deployment_id, { digest, at: Date.now() });
      this.logger.info(
        { deploymentId: d.deployment_id, revisionId: rev.revision_id, objects: objects.length, pruned },
        "applied revision",
      );
      if (rev.status === "DEPLOYING") {
        await this.controlPlane.appendLogs(d.deployment_id, rev.revision_id, [
          {
            level: "INFO",
            message: `Applied ${objects.length} objects in namespace ${d.namespace} (server-side apply, field manager berth): ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(", ")}`,
          },
          ...pruned.map((p) => ({
            level: "INFO" as const,
            message: `Pruned ${p}: the revision no longer renders it`,
          })),
        ]);
      }
    }
    if (rev.status === "DEPLOYING") await this.#track(d, rev);
  }

  /** Checks the rollout of a revision being deployed and reports it once it settles. */
  async #track(d: DesiredDeployment, rev: DesiredRevisionState): Promise<void> {
    const api = await this.cluster.get("apps/v1", "Deployment", d.namespace, objectName(d, "api"));
    const pods = await this.cluster.list(
      "v1",
      "Pod",
      d.namespace,
      `${LABELS.deployment}=${d.deployment_id},${LABELS.component}=api,${LABELS.revision}=${rev.revision_id}`,
    );
    const verdict = judgeRollout(api, pods, rev.revision_id);
    if (verdict.state === "available") {
      const url = d.custom_url ?? inClusterUrl(d);
      await this.controlPlane.appendLogs(d.deployment_id, rev.revision_id, [
        { level: "INFO", message: `The API Deployment's new ReplicaSet is available; serving at ${url}` },
      ]);
      await this.controlPlane.report(d.deployment_id, rev.revision_id, { status: "DEPLOYED", url });
      this.logger.info({ deploymentId: d.deployment_id, revisionId: rev.revision_id }, "revision DEPLOYED");
    } else if (verdict.state === "failed") {
      if (verdict.pod) {
        const { name, container, previous } = verdict.pod;
        const text = await this.cluster
          .podLogs(d.namespace, name, container, LOG_TAIL_LINES, previous)
          .catch((error: unknown) => `(no log: ${message(error)})`);
        const lines = text.split("\n").filter((line) => line.trim() !== "");
        await this.controlPlane.appendLogs(d.deployment_id, rev.revision_id, [
          { level: "ERROR", message: `Last log lines of pod ${name}, container ${container}:` },
          ...lines.slice(-LOG_TAIL_LINES).map((line) => ({ level: "ERROR" as const, message: line })),
        ]);
      }
      await this.#fail(d, rev, verdict.reason);
    }
  }

  async #fail(d: DesiredDeployment, rev: DesiredRevisionState, reason: string): Promise<void> {
    if (rev.status === "AWAITING_DEPLOY") {
      if (!(await this.controlPlane.report(d.deployment_id, rev.revision_id, { status: "DEPLOYING" })))
        return;
    }
    await this.controlPlane.report(d.deployment_id, rev.revision_id, { status: "DEPLOY_FAILED", reason });
    // The serving revision comes back in the next desired state; its apply is not skipped.
    this.#applied.delete(d.deployment_id);
    this.logger.warn(
      { deploymentId: d.deployment_id, revisionId: rev.revision_id, reason },
      "revision DEPLOY_FAILED",
    );
  }

  /** Deletes the deployment's objects (this listener's) that `current` no longer holds. */
  async #prune(d: DesiredDeployment, current: KubeObject[]): Promise<string[]> {
    const selector = `${LABELS.deployment}=${d.deployment_id},${LABELS.listener}=${this.options.listenerId}`;
    const live: KubeObject[] = [];
    for (const { apiVersion, kind } of MANAGED_KINDS) {
      for (const o of await this.cluster.list(apiVersion, kind, d.namespace, selector)) {
        live.push({ ...o, apiVersion, kind });
      }
    }
    const gone = toPrune(current, live);
    for (const object of gone) await this.cluster.delete(object);
    return gone.map((o) => `${o.kind}/${o.metadata.name}`);
  }

  /** Deletes every object this listener made for deployments no longer in the desired state. */
  async #deleteUnassigned(assigned: ReadonlySet<string>): Promise<void> {
    const namespaces = this.options.namespaces.length > 0 ? this.options.namespaces : [undefined];
    const selector = `${LABELS.listener}=${this.options.listenerId},${LABELS.managedBy}=berth`;
    for (const namespace of namespaces) {
      for (const { apiVersion, kind } of MANAGED_KINDS) {
        let objects: KubeObject[];
        try {
          objects = await this.cluster.list(apiVersion, kind, namespace, selector);
        } catch (error) {
          this.logger.error({ namespace, kind, err: message(error) }, "could not list objects to clean up");
          continue;
        }
        for (const object of objects) {
          const deploymentId = object.metadata.labels?.[LABELS.deployment];
          if (!deploymentId || assigned.has(deploymentId)) continue;
          await this.cluster.delete({ ...object, apiVersion, kind });
          this.#applied.delete(deploymentId);
          this.logger.info(
            { deploymentId, object: `${kind}/${object.metadata.name}`, namespace: object.metadata.namespace },
            "deleted an object of a deployment that is gone",
          );
        }
      }
    }
  }

  /** Adds this listener's label to an object (its own objects are the only ones it prunes or deletes). */
  #own(object: KubeObject): KubeObject {
    return {
      ...object,
      metadata: {
        ...object.metadata,
        labels: { ...(object.metadata.labels ?? {}), [LABELS.listener]: this.options.listenerId },
      },
    };
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
