// Records for the storage contract, built by the real domain code.
import { randomUUID } from "node:crypto";
import { planCreate } from "../src/domain/deployment.js";
import type { Deployment, Revision } from "../src/domain/types.js";
import { DeploymentCreateRequest } from "../src/schemas/requests.js";

const ctx = {
  listenerExists: () => false,
  listenerIds: () => [],
  isUploadPath: () => false,
  repoUrlProblem: () => null,
};

/** A deployment + first revision + project for `tenant`, built by the real domain code. */
export function fixture(tenant: string, name: string) {
  const stamp = { now: new Date().toISOString(), newId: randomUUID };
  const request = DeploymentCreateRequest.parse({
    name,
    source: "external_container",
    source_config: { resource_spec: {} },
    source_revision_config: { image_uri: "img:1" },
    secrets: [{ name: "A", value: "secret-a" }],
  });
  const { deployment, revision } = planCreate(request, tenant, ctx, stamp);
  const project = {
    id: randomUUID(),
    tenant_id: tenant,
    name,
    deployment_id: deployment.id,
    created_at: stamp.now,
  };
  return { deployment, revision, project };
}

/** The deployment's next revision, waiting in CREATING. */
export function nextRevision(deployment: Deployment): Revision {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    deployment_id: deployment.id,
    tenant_id: deployment.tenant_id,
    source: deployment.source,
    status: "CREATING",
    source_revision_config: deployment.source_revision_config,
    resource_spec: deployment.source_config.resource_spec,
    install_command: null,
    build_command: null,
    secrets: deployment.secrets,
    secret_references: [],
    created_at: now,
    updated_at: now,
  };
}
