import { SECRET_MASK } from "../domain/secrets.js";
import type { Deployment, Revision, TracingProject } from "../domain/types.js";
import { realRevisionConfig, realSource, realSourceConfig, type Vocabulary } from "../schemas/aliases.js";
import { secretNamesOf } from "../secrets/names.js";

/**
 * A deployment as the API returns it, secrets masked, in the vocabulary it was created with:
 * the neutral names, or the real service's (`github`, `langgraph_config_path`, …).
 */
export function deploymentToWire(d: Deployment) {
  const real = d.vocabulary === "real";
  return {
    name: d.name,
    source: real ? realSource(d.source) : d.source,
    source_config: real ? realSourceConfig(d.source_config) : d.source_config,
    source_revision_config: real ? realRevisionConfig(d.source_revision_config) : d.source_revision_config,
    // Names only: a record read from storage gives them without decrypting the values.
    secrets: secretNamesOf(d).map((name) => ({ name, value: SECRET_MASK })),
    secret_references: d.secret_references,
    id: d.id,
    tenant_id: d.tenant_id,
    created_at: d.created_at,
    updated_at: d.updated_at,
    status: d.status,
    latest_revision_id: d.latest_revision_id,
    active_revision_id: d.active_revision_id,
    image_version: d.image_version,
    display_name: d.display_name,
  };
}

/** A revision as the API returns it (no secrets, as in the published schema), in its deployment's vocabulary. */
export function revisionToWire(r: Revision, vocabulary: Vocabulary) {
  const real = vocabulary === "real";
  return {
    id: r.id,
    deployment_id: r.deployment_id,
    created_at: r.created_at,
    updated_at: r.updated_at,
    status: r.status,
    source: real ? realSource(r.source) : r.source,
    source_revision_config: real ? realRevisionConfig(r.source_revision_config) : r.source_revision_config,
  };
}

/** A tracing project as the API returns it. */
export function projectToWire(p: TracingProject) {
  return {
    id: p.id,
    tenant_id: p.tenant_id,
    name: p.name,
    deployment_id: p.deployment_id,
    created_at: p.created_at,
  };
}
