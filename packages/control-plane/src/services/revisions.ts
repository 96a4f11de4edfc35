import { inputsOf, newRevision, withRevisionInputs } from "../domain/deployment.js";
import { planPatch } from "../domain/patch.js";
import { interruptStatus } from "../domain/revision-status.js";
import type { Deployment, Revision } from "../domain/types.js";
import { ConflictError, NotFoundError } from "../errors.js";
import type { Vocabulary } from "../schemas/aliases.js";
import type { RevisionCreateRequest } from "../schemas/requests.js";
import type { ControlPlaneStorage, LatestRevisionStatus } from "../storage/types.js";
import { contextOf, stampNow } from "./context.js";
import type { DeploymentService, Doorbell } from "./deployments.js";
import type { KeyedMutex } from "./mutex.js";
import { noteRevisions, supersededNote } from "./revision-notes.js";

/** Revision use cases; every one first resolves the deployment within the caller's tenant. */
export class RevisionService {
  constructor(
    private readonly storage: ControlPlaneStorage,
    private readonly deployments: DeploymentService,
    private readonly locks: KeyedMutex,
    private readonly doorbell: Doorbell,
  ) {}

  /** The vocabulary the deployment's responses use (404 when it is not the tenant's). */
  async vocabulary(tenantId: string, deploymentId: string): Promise<Vocabulary> {
    return (await this.deployments.get(tenantId, deploymentId)).vocabulary;
  }

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

  /**
   * The latest revision's status of each listed deployment, in one read (the dashboard's list of
   * hundreds of deployments). Ids of other tenants' or deleted deployments are simply absent.
   */
  latestOf(tenantId: string, deploymentIds: readonly string[]): Promise<LatestRevisionStatus[]> {
    return this.storage.revisions.latestOf(tenantId, deploymentIds);
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
      const plan = planPatch(
        current,
        request,
        await contextOf(this.storage, tenantId, deploymentId, this.deployments.repos),
        true,
      );
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

  /**
   * build_on_push: under the deployment's lock, `decide` sees the deployment and its latest
   * revision and returns the first build-log line of a new revision (or null for none). The new
   * revision clones the latest one's inputs; its commit is left for the build to resolve.
   */
  async rebuildLatest(
    tenantId: string,
    deploymentId: string,
    decide: (deployment: Deployment, latest: Revision) => Promise<string | null>,
  ): Promise<Revision | null> {
    return this.locks.run(deploymentId, async () => {
      const deployment = await this.storage.deployments.get(tenantId, deploymentId);
      if (!deployment?.latest_revision_id) return null;
      const latest = await this.storage.revisions.get(tenantId, deploymentId, deployment.latest_revision_id);
      if (!latest) return null;
      const note = await decide(deployment, latest);
      if (note === null) return null;
      const inputs = {
        ...latest,
        source_revision_config: { ...latest.source_revision_config, repo_commit_sha: null },
      };
      return (await this.commit(deployment, inputs, note)).revision;
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
    note?: string,
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
    const skipped = await this.storage.deployments.saveWithRevision(saved, revision);
    await noteRevisions(this.storage, saved, skipped, supersededNote(revision));
    if (note) await noteRevisions(this.storage, saved, [revision.id], note);
    this.doorbell.kick();
    return { deployment: saved, revision };
  }
}
