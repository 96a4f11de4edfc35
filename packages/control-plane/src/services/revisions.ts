import { inputsOf, newRevision, withRevisionInputs } from "../domain/deployment.js";
import { planPatch } from "../domain/patch.js";
import { interruptStatus } from "../domain/revision-status.js";
import type { Deployment, Revision } from "../domain/types.js";
import { ConflictError, NotFoundError } from "../errors.js";
import type { RevisionCreateRequest } from "../schemas/requests.js";
import type { ControlPlaneStorage } from "../storage/types.js";
import { contextOf, stampNow } from "./context.js";
import type { DeploymentService, Doorbell } from "./deployments.js";
import type { KeyedMutex } from "./mutex.js";

/** Revision use cases; every one first resolves the deployment within the caller's tenant. */
export class RevisionService {
  constructor(
    private readonly storage: ControlPlaneStorage,
    private readonly deployments: DeploymentService,
    private readonly locks: KeyedMutex,
    private readonly doorbell: Doorbell,
  ) {}

  /** A page of the deployment's revisions, newest first. */
  async list(
    tenantId: string,
    deploymentId: string,
    filter: { statuses?: string[] | undefined; limit: number; offset: number },
  ): Promise<{ resources: Revision[]; offset: number }> {
    await this.deployments.get(tenantId, deploymentId);
    const resources = await this.storage.revisions.list(tenantId, deploymentId, filter);
    return { resources, offset: filter.offset + resources.length };
  }

  /** One revision, 404 when it (or its deployment) is not the tenant's. */
  async get(tenantId: string, deploymentId: string, revisionId: string): Promise<Revision> {
    await this.deployments.get(tenantId, deploymentId);
    const revision = await this.storage.revisions.get(tenantId, deploymentId, revisionId);
    if (!revision) throw new NotFoundError(`Revision ID ${revisionId} not found.`);
    return revision;
  }

  /** `POST …/revisions`: always creates a revision (PATCH rules for what it carries). */
  async create(tenantId: string, deploymentId: string, request: RevisionCreateRequest): Promise<Revision> {
    return this.locks.run(deploymentId, async () => {
      const current = await this.deployments.mutable(tenantId, deploymentId);
      const plan = planPatch(current, request, await contextOf(this.storage, tenantId, deploymentId), true);
      const inputs = plan.revision ?? inputsOf(current);
      return (await this.commit(plan.deployment, inputs)).revision;
    });
  }

  /** `POST …/revisions/{id}/redeploy`: a new revision cloned from that one; returns the deployment. */
  async redeploy(tenantId: string, deploymentId: string, revisionId: string): Promise<Deployment> {
    return this.locks.run(deploymentId, async () => {
      const current = await this.deployments.mutable(tenantId, deploymentId);
      const source = await this.storage.revisions.get(tenantId, deploymentId, revisionId);
      if (!source) throw new NotFoundError(`Revision ID ${revisionId} not found.`);
      return (await this.commit(current, source)).deployment;
    });
  }

  /** `POST …/revisions/{id}/interrupt`: stops a revision that has not finished (400 if it has). */
  async interrupt(tenantId: string, deploymentId: string, revisionId: string): Promise<Revision> {
    return this.locks.run(deploymentId, async () => {
      const revision = await this.get(tenantId, deploymentId, revisionId);
      const next = interruptStatus(revision.status);
      const now = new Date().toISOString();
      if (!(await this.storage.revisions.setStatus(revision.id, revision.status, next, now))) {
        throw new ConflictError(`Revision ID ${revisionId} changed status meanwhile; try again.`);
      }
      this.doorbell.kick();
      return { ...revision, status: next, updated_at: now };
    });
  }

  private async commit(
    deployment: Deployment,
    inputs: Pick<
      Revision,
      | "source_revision_config"
      | "resource_spec"
      | "install_command"
      | "build_command"
      | "secrets"
      | "secret_references"
    >,
  ): Promise<{ deployment: Deployment; revision: Revision }> {
    const stamp = stampNow();
    const copy = {
      source_revision_config: { ...inputs.source_revision_config },
      resource_spec: inputs.resource_spec,
      install_command: inputs.install_command,
      build_command: inputs.build_command,
      secrets: inputs.secrets,
      secret_references: inputs.secret_references,
    };
    const revision = newRevision(deployment, copy, stamp);
    const saved: Deployment = {
      ...withRevisionInputs(deployment, copy),
      latest_revision_id: revision.id,
      updated_at: stamp.now,
    };
    await this.storage.deployments.saveWithRevision(saved, revision);
    this.doorbell.kick();
    return { deployment: saved, revision };
  }
}
