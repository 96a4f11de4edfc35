import { createHmac, timingSafeEqual } from "node:crypto";
import { runsOnListener } from "../domain/deployment.js";
import { isDeleting } from "../domain/deployment-status.js";
import { secretRedactor } from "../domain/redact.js";
import { effectiveResourceSpec, normalizeResourceSpec } from "../domain/resource-spec.js";
import type { RevisionStatus } from "../domain/revision-status.js";
import type {
  Deployment,
  Listener,
  ResourceSpec,
  Revision,
  Secret,
  SecretReference,
} from "../domain/types.js";
import { ConflictError, NotFoundError, UnauthorizedError } from "../errors.js";
import type { ControlPlaneStorage } from "../storage/types.js";
import { hashApiKey } from "./auth.js";
import type { KeyedMutex } from "./mutex.js";

/** How often a listener is asked to poll (it may poll more often). */
export const LISTENER_POLL_SECONDS = 5;

/** One revision as the listener renders it (the listener package's DesiredRevision, plus its status). */
export interface DesiredRevisionOut {
  deployment_id: string;
  revision_id: string;
  status: RevisionStatus;
  name: string;
  namespace: string;
  image_uri: string;
  secrets: Secret[];
  secret_references: SecretReference[];
  resource_spec: ResourceSpec;
  database_password: string;
}

/** A deployment the listener keeps in its cluster. */
export interface DesiredDeployment {
  deployment_id: string;
  name: string;
  namespace: string;
  /** The URL the user set, else null (the listener then reports the Service's in-cluster URL). */
  custom_url: string | null;
  /**
   * The revision the cluster should run: the one being deployed, else the serving one; null when
   * there is none yet (objects already there are left alone).
   */
  revision: DesiredRevisionOut | null;
}

/** What `GET /v2/listeners/{id}/desired-state` answers. */
export interface DesiredState {
  listener_id: string;
  poll_interval_seconds: number;
  /** Every deployment assigned to the listener; objects of any other deployment are to be deleted. */
  deployments: DesiredDeployment[];
}

/** A listener's report on a revision. */
export interface RevisionReport {
  status: "DEPLOYING" | "DEPLOYED" | "DEPLOY_FAILED";
  /** Why the rollout failed (DEPLOY_FAILED), for the deploy log. */
  reason?: string | null | undefined;
  /** Where the deployment is reached in the cluster (DEPLOYED); custom_url when the user set none. */
  url?: string | null | undefined;
}

/** A line of a revision's deploy log, as the listener sends it. */
export interface ListenerLogLine {
  timestamp?: number | undefined;
  level?: "DEBUG" | "INFO" | "WARNING" | "ERROR" | undefined;
  message: string;
}

/**
 * The listener-facing side of the control plane: a listener (authenticated by its own key)
 * polls the desired state of its deployments and reports each revision's rollout and deploy log.
 * Statuses move only on these reports: the control plane never connects to the cluster.
 */
export class ListenerAgentService {
  constructor(
    private readonly storage: ControlPlaneStorage,
    private readonly locks: KeyedMutex,
    /** Asks the provisioner for a pass (a finished rollout lets a queued revision go). */
    private readonly kick: () => void,
    /** Key the deployments' generated database passwords are derived from (stable, never stored). */
    private readonly passwordKey: Buffer,
  ) {}

  /** The listener whose id and key these are; 401 otherwise (an unknown id looks like a wrong key). */
  async authenticate(listenerId: string, key: string | undefined): Promise<Listener> {
    const found = await this.storage.listeners.byIdWithKey(listenerId);
    const given = Buffer.from(hashApiKey(key ?? ""), "hex");
    const stored = found?.keyHash ? Buffer.from(found.keyHash, "hex") : null;
    if (!key || !found || !stored || stored.length !== given.length || !timingSafeEqual(stored, given)) {
      throw new UnauthorizedError("Missing or invalid listener key.");
    }
    return found.listener;
  }

  /** The deployments the listener runs and the revision each should run; records the poll. */
  async desiredState(listener: Listener): Promise<DesiredState> {
    await this.storage.listeners.touch(listener.id, new Date().toISOString());
    const deployments: DesiredDeployment[] = [];
    for (const deployment of await this.storage.deployments.listByListener(listener.tenant_id, listener.id)) {
      if (!runsOnListener(deployment) || isDeleting(deployment.status)) continue;
      const namespace = namespaceOf(deployment, listener);
      const revision = await this.#target(deployment);
      deployments.push({
        deployment_id: deployment.id,
        name: deployment.name,
        namespace,
        custom_url: deployment.source_config.custom_url,
        revision: revision && this.#desired(deployment, revision, namespace),
      });
    }
    return { listener_id: listener.id, poll_interval_seconds: LISTENER_POLL_SECONDS, deployments };
  }

  /**
   * Moves a revision on the listener's word: AWAITING_DEPLOY → DEPLOYING → DEPLOYED or
   * DEPLOY_FAILED. Repeating the current status is accepted (a retried report); any other move is
   * a 409 (the revision was interrupted or superseded: the listener stops working on it).
   */
  async report(
    listener: Listener,
    deploymentId: string,
    revisionId: string,
    report: RevisionReport,
  ): Promise<{ status: RevisionStatus }> {
    const { deployment, revision } = await this.#owned(listener, deploymentId, revisionId);
    const now = () => new Date().toISOString();
    const log = (level: string, message: string) => this.#log(revision, [{ level, message }]);
    if (revision.status === report.status) return { status: revision.status };
    let status = revision.status;
    const move = async (to: RevisionStatus) => {
      if (!(await this.storage.revisions.setStatus(revision.id, status, to, now()))) {
        const current = await this.storage.revisions.get(deployment.tenant_id, deployment.id, revision.id);
        throw new ConflictError(`Revision is ${current?.status ?? "gone"}; it cannot become ${to}.`);
      }
      status = to;
    };
    const expect = (from: RevisionStatus) => {
      if (status !== from)
        throw new ConflictError(`Revision is ${status}; it cannot become ${report.status}.`);
    };
    switch (report.status) {
      case "DEPLOYING":
        expect("AWAITING_DEPLOY");
        await move("DEPLOYING");
        await log("INFO", `Listener ${listener.compute_id} is deploying revision ${revision.id}.`);
        break;
      case "DEPLOY_FAILED":
        // A failure before the rollout began (the namespace is not served, the apply was refused).
        if (status === "AWAITING_DEPLOY") await move("DEPLOYING");
        expect("DEPLOYING");
        await move("DEPLOY_FAILED");
        await log("ERROR", `Revision ${revision.id} DEPLOY_FAILED: ${report.reason ?? "no reason given"}`);
        break;
      case "DEPLOYED": {
        expect("DEPLOYING");
        await move("DEPLOYED");
        let url: string | null = null;
        await this.locks.run(deployment.id, async () => {
          const current = await this.storage.deployments.get(deployment.tenant_id, deployment.id);
          if (!current) return;
          url = current.source_config.custom_url ?? report.url ?? null;
          await this.storage.deployments.save({
            ...current,
            active_revision_id: revision.id,
            source_config: { ...current.source_config, custom_url: url },
            updated_at: now(),
          });
        });
        await log("INFO", `Revision ${revision.id} is DEPLOYED${url ? ` at ${url}` : ""}.`);
        break;
      }
    }
    this.kick();
    return { status };
  }

  /** Appends lines to the revision's deploy log (secret values redacted). */
  async appendLogs(
    listener: Listener,
    deploymentId: string,
    revisionId: string,
    lines: readonly ListenerLogLine[],
  ): Promise<void> {
    const { revision } = await this.#owned(listener, deploymentId, revisionId);
    await this.#log(
      revision,
      lines.map((line) => ({
        level: line.level ?? "INFO",
        message: line.message,
        timestamp: line.timestamp,
      })),
    );
  }

  /** The deployment (assigned to this listener) and its revision; 404 for anything else. */
  async #owned(
    listener: Listener,
    deploymentId: string,
    revisionId: string,
  ): Promise<{ deployment: Deployment; revision: Revision }> {
    const deployment = await this.storage.deployments.get(listener.tenant_id, deploymentId);
    const revision =
      deployment?.source_config.listener_id === listener.id
        ? await this.storage.revisions.get(listener.tenant_id, deploymentId, revisionId)
        : undefined;
    if (!deployment || !revision) throw new NotFoundError(`Revision ID ${revisionId} not found.`);
    return { deployment, revision };
  }

  /** The revision being rolled out (newest), else the serving one. */
  async #target(deployment: Deployment): Promise<Revision | null> {
    const [rolling] = await this.storage.revisions.list(deployment.tenant_id, deployment.id, {
      statuses: ["AWAITING_DEPLOY", "DEPLOYING"],
      limit: 1,
      offset: 0,
    });
    if (rolling) return rolling;
    if (!deployment.active_revision_id) return null;
    return (
      (await this.storage.revisions.get(
        deployment.tenant_id,
        deployment.id,
        deployment.active_revision_id,
      )) ?? null
    );
  }

  #desired(deployment: Deployment, revision: Revision, namespace: string): DesiredRevisionOut | null {
    const image = revision.source_revision_config.image_uri;
    if (!image) return null;
    return {
      deployment_id: deployment.id,
      revision_id: revision.id,
      status: revision.status,
      name: deployment.name,
      namespace,
      image_uri: image,
      secrets: revision.secrets.map((s) => ({ name: s.name, value: s.value })),
      secret_references: revision.secret_references,
      resource_spec: effectiveResourceSpec(revision.resource_spec ?? normalizeResourceSpec({})),
      database_password: createHmac("sha256", this.passwordKey).update(deployment.id).digest("base64url"),
    };
  }

  async #log(
    revision: Revision,
    lines: ReadonlyArray<{ level: string; message: string; timestamp?: number | undefined }>,
  ): Promise<void> {
    const redact = secretRedactor(revision.secrets.map((s) => s.value));
    await this.storage.logs.append(
      lines.map((line) => ({
        tenant_id: revision.tenant_id,
        deployment_id: revision.deployment_id,
        revision_id: revision.id,
        type: "deploy" as const,
        timestamp: line.timestamp ?? Date.now(),
        level: line.level,
        message: redact(line.message),
      })),
    );
  }
}

/** The namespace a deployment runs in: its own, else the listener's first, else `default`. */
function namespaceOf(deployment: Deployment, listener: Listener): string {
  return (
    deployment.source_config.listener_config?.cluster_namespace ??
    listener.compute_config.cluster_namespaces?.[0] ??
    "default"
  );
}
