import { newRevision, planCreate, withRevisionInputs } from "../domain/deployment.js";
import { isDeleting } from "../domain/deployment-status.js";
import { planPatch } from "../domain/patch.js";
import type { Deployment } from "../domain/types.js";
import { BadRequestError, ConflictError, NotFoundError } from "../errors.js";
import type { Vocabulary } from "../schemas/aliases.js";
import type { DeploymentCreateRequest, DeploymentPatchRequest } from "../schemas/requests.js";
import type { ControlPlaneStorage, DeploymentFilter } from "../storage/types.js";
import { contextOf, type RepoPolicy, stampNow } from "./context.js";
import type { KeyedMutex } from "./mutex.js";
import { noteRevisions, supersededNote, waitingForSourceNote } from "./revision-notes.js";

/** Wakes whatever advances statuses after a change (the provisioner). */
export interface Doorbell {
  kick(): void;
}

/** Deployment use cases, all scoped to the caller's tenant. */
export class DeploymentService {
  constructor(
    private readonly storage: ControlPlaneStorage,
    private readonly locks: KeyedMutex,
    private readonly doorbell: Doorbell,
    /** Which repositories may be cloned (checked on create and PATCH). */
    readonly repos: RepoPolicy,
  ) {}

  /** Creates a deployment, its first revision and its tracing project. */
  async create(
    tenantId: string,
    request: DeploymentCreateRequest,
    vocabulary: Vocabulary = "neutral",
  ): Promise<Deployment> {
    const stamp = stampNow();
    const planned = planCreate(
      request,
      tenantId,
      await contextOf(this.storage, tenantId, null, this.repos),
      stamp,
    );
    const { revision } = planned;
    // Answered in the vocabulary it was created in, for good (PATCHes in the other one do not move it).
    const deployment: Deployment = await this.#placeOnListener({ ...planned.deployment, vocabulary });
    await this.storage.deployments.create(deployment, revision, {
      id: stamp.newId(),
      tenant_id: tenantId,
      name: deployment.name,
      deployment_id: deployment.id,
      created_at: stamp.now,
    });
    const waiting = waitingForSourceNote(deployment, revision);
    if (waiting) await noteRevisions(this.storage, deployment, [revision.id], waiting);
    this.doorbell.kick();
    return deployment;
  }

  /**
   * An internal_container deployment (an image pushed to the operator's registry) runs on the
   * workspace's data plane when it has exactly one listener: placed in that listener's first
   * namespace. Without one it stays unplaced (the local runtime cannot run images).
   */
  async #placeOnListener(deployment: Deployment): Promise<Deployment> {
    if (deployment.source !== "internal_container" || deployment.source_config.listener_id !== null) {
      return deployment;
    }
    const listeners = await this.storage.listeners.list(deployment.tenant_id, { limit: 2, offset: 0 });
    const [only] = listeners;
    if (listeners.length !== 1 || !only) return deployment;
    return {
      ...deployment,
      source_config: {
        ...deployment.source_config,
        listener_id: only.id,
        listener_config: { cluster_namespace: only.compute_config.cluster_namespaces?.[0] ?? null },
      },
    };
  }

  /** One page of the tenant's deployments, newest first; `offset` is the next one to ask for. */
  async list(
    tenantId: string,
    filter: DeploymentFilter,
  ): Promise<{ resources: Deployment[]; offset: number }> {
    const resources = await this.storage.deployments.list(tenantId, filter);
    return { resources, offset: filter.offset + resources.length };
  }

  /** A deployment of the tenant, or 404 (also for another tenant's id). */
  async get(tenantId: string, id: string): Promise<Deployment> {
    const deployment = await this.storage.deployments.get(tenantId, id);
    if (!deployment) throw new NotFoundError(`Deployment ID ${id} not found.`);
    return deployment;
  }

  /** Applies a PATCH (reference §4.3); creates a revision when revision inputs were sent. */
  async patch(tenantId: string, id: string, request: DeploymentPatchRequest): Promise<Deployment> {
    return this.locks.run(id, async () => {
      const current = await this.mutable(tenantId, id);
      const plan = planPatch(current, request, await contextOf(this.storage, tenantId, id, this.repos));
      const stamp = stampNow();
      if (!plan.revision) {
        const saved = { ...plan.deployment, updated_at: stamp.now };
        await this.storage.deployments.save(saved);
        return saved;
      }
      const revision = newRevision(plan.deployment, plan.revision, stamp);
      const saved: Deployment = {
        ...withRevisionInputs(plan.deployment, plan.revision),
        latest_revision_id: revision.id,
        updated_at: stamp.now,
      };
      const skipped = await this.storage.deployments.saveWithRevision(saved, revision);
      await noteRevisions(this.storage, saved, skipped, supersededNote(revision));
      this.doorbell.kick();
      return saved;
    });
  }

  /**
   * Starts the asynchronous teardown (AWAITING_DELETE, then gone). `force` is only valid on a
   * deployment already being deleted.
   */
  async delete(
    tenantId: string,
    id: string,
    options: { deleteTracingProject: boolean; force: boolean },
  ): Promise<void> {
    await this.locks.run(id, async () => {
      const current = await this.get(tenantId, id);
      if (options.force && !isDeleting(current.status)) {
        throw new BadRequestError(
          "force=true is only allowed on a deployment that is already being deleted.",
        );
      }
      if (isDeleting(current.status)) return;
      await this.storage.deployments.save({
        ...current,
        status: "AWAITING_DELETE",
        delete_tracing_project: options.deleteTracingProject,
        updated_at: new Date().toISOString(),
      });
    });
    this.doorbell.kick();
  }

  /** Deletes several deployments; reports which ids were found. */
  async bulkDelete(
    tenantId: string,
    ids: string[],
    deleteTracingProject: boolean,
  ): Promise<{ deleted: string[]; not_found: string[] }> {
    const deleted: string[] = [];
    const notFound: string[] = [];
    for (const id of new Set(ids)) {
      try {
        await this.delete(tenantId, id, { deleteTracingProject, force: false });
        deleted.push(id);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        notFound.push(id);
      }
    }
    return { deleted, not_found: notFound };
  }

  /** The deployment, refusing changes while it is being deleted (409). */
  async mutable(tenantId: string, id: string): Promise<Deployment> {
    const current = await this.get(tenantId, id);
    if (isDeleting(current.status)) {
      throw new ConflictError(`Deployment ID ${id} is being deleted and cannot be changed.`);
    }
    return current;
  }
}
