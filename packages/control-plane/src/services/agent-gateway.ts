import { NotFoundError, ServiceUnavailableError } from "../errors.js";
import type { DeploymentRuntime } from "../runtime/types.js";
import type { DeploymentStore } from "../storage/types.js";

/**
 * Resolves a deployment's agent URL to the agent server serving it now: the stable URL
 * (`/agents/{deployment_id}`) keeps working across revisions while the upstream changes.
 */
export class AgentGateway {
  constructor(
    private readonly deployments: DeploymentStore,
    private readonly runtime: DeploymentRuntime | null,
  ) {}

  /**
   * The upstream base URL of a tenant's deployment and the credential it requires (`responded()`
   * once its response begins, `release()` once answered); 404 for unknown/foreign ids, 503 when
   * nothing runs.
   */
  async upstream(
    tenantId: string,
    deploymentId: string,
  ): Promise<{ url: string; token: string | null; release(): void; responded(): void }> {
    const deployment = await this.deployments.get(tenantId, deploymentId);
    if (!deployment) throw new NotFoundError(`Deployment ID ${deploymentId} not found.`);
    const running = await this.runtime?.serving(deploymentId);
    if (!running) {
      throw new ServiceUnavailableError(
        deployment.active_revision_id
          ? "The deployment's agent server is restarting; try again shortly."
          : "The deployment has no deployed revision yet; its agent answers here once a revision is DEPLOYED.",
      );
    }
    return {
      url: running.upstream,
      token: running.token,
      release: () => running.release(),
      responded: () => running.responded(),
    };
  }
}
