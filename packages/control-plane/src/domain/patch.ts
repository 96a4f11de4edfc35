import { BadRequestError, UnprocessableError } from "../errors.js";
import type { DeploymentPatchRequest, RevisionCreateRequest } from "../schemas/requests.js";
import {
  checkRevisionInputs,
  checkSourceConfig,
  type RuleContext,
  toSourceRevisionConfig,
} from "./deployment.js";
import { revisionChangeIssues } from "./kubernetes-rules.js";
import { normalizeResourceSpec } from "./resource-spec.js";
import { checkFieldsApply, sentFields } from "./rules.js";
import { resolveMaskedSecrets } from "./secrets.js";
import type { Deployment, RevisionInputs, SourceConfig } from "./types.js";

/** What a PATCH or revision-create changes. */
export interface PatchPlan {
  /** The deployment with the changes that need no revision (build_on_push, custom_url, display_name). */
  deployment: Deployment;
  /** Inputs of the revision to create, or null when nothing revision-worthy was sent. */
  revision: RevisionInputs | null;
}

const IMMUTABLE_SOURCE_CONFIG = [
  "integration_id",
  "repo_url",
  "deployment_type",
  "listener_id",
  "template_id",
] as const;

function refuseChange(field: string, sent: unknown, current: unknown): void {
  if (sent !== null && sent !== undefined && sent !== current) {
    throw new BadRequestError(`${field} cannot be changed after creation.`);
  }
}

/**
 * PATCH semantics (reference §4.3): nulls and omissions never clear; immutable fields may only be
 * re-sent unchanged; `build_on_push`, `custom_url` and `display_name` change without a revision;
 * a non-null `resource_spec` (replacing the whole object), `install_command`, `build_command`, any
 * non-null revision field, a non-empty `secrets` list (an empty one changes nothing) or a non-null
 * `secret_references` list (`[]` removes them all) creates a revision. With `always`
 * (POST …/revisions) a revision is created even when nothing changed.
 */
export function planPatch(
  current: Deployment,
  request: DeploymentPatchRequest | RevisionCreateRequest,
  ctx: RuleContext,
  always = false,
): PatchPlan {
  const patch: DeploymentPatchRequest = request;
  refuseChange("name", patch.name, current.name);
  refuseChange("source", patch.source, current.source);
  if (patch.revision_source && patch.revision_source !== current.source) {
    throw new BadRequestError(
      `revision_source '${patch.revision_source}' differs from the deployment's source '${current.source}'; a deployment keeps its source.`,
    );
  }
  checkFieldsApply(current.source, sentFields(patch));
  const sc = patch.source_config ?? {};
  for (const field of IMMUTABLE_SOURCE_CONFIG) {
    refuseChange(`source_config.${field}`, sc[field], current.source_config[field]);
  }
  refuseChange(
    "source_config.listener_config.cluster_namespace",
    sc.listener_config?.cluster_namespace,
    current.source_config.listener_config?.cluster_namespace ?? null,
  );

  const sourceConfig: SourceConfig = {
    ...current.source_config,
    build_on_push: sc.build_on_push ?? current.source_config.build_on_push,
    custom_url: sc.custom_url ?? current.source_config.custom_url,
  };
  const rc = patch.source_revision_config ?? {};
  const revisionFieldSent = Object.values(rc).some((v) => v !== null && v !== undefined);
  const secretsSent = (patch.secrets?.length ?? 0) > 0;
  const createsRevision =
    always ||
    revisionFieldSent ||
    secretsSent ||
    (patch.secret_references !== null && patch.secret_references !== undefined) ||
    (sc.resource_spec !== null && sc.resource_spec !== undefined) ||
    (sc.install_command !== null && sc.install_command !== undefined) ||
    (sc.build_command !== null && sc.build_command !== undefined);

  const deployment: Deployment = {
    ...current,
    display_name: patch.display_name ?? current.display_name,
    source_config: sourceConfig,
  };
  if (!createsRevision) {
    checkSourceConfig(sourceConfig, current.source_revision_config.repo_ref, ctx);
    return { deployment, revision: null };
  }
  const revisionConfig = toSourceRevisionConfig(rc, current.source_revision_config);
  revisionConfig.tracked_packages = patch.tracked_packages ?? current.source_revision_config.tracked_packages;
  const inputs: RevisionInputs = {
    source_revision_config: revisionConfig,
    resource_spec: sc.resource_spec
      ? normalizeResourceSpec(sc.resource_spec)
      : current.source_config.resource_spec,
    install_command: sc.install_command ?? current.source_config.install_command,
    build_command: sc.build_command ?? current.source_config.build_command,
    secrets: secretsSent ? resolveMaskedSecrets(patch.secrets ?? [], current.secrets) : current.secrets,
    secret_references: patch.secret_references
      ? patch.secret_references.map((r) => ({ ...r }))
      : current.secret_references,
  };
  checkSourceConfig(sourceConfig, revisionConfig.repo_ref, ctx);
  checkRevisionInputs(current.source, inputs, ctx);
  if (current.source === "external_container") {
    const issues = revisionChangeIssues(
      {
        resource_spec: current.source_config.resource_spec,
        secrets: current.secrets,
        secret_references: current.secret_references,
      },
      inputs,
    );
    if (issues.length > 0) throw new UnprocessableError(issues);
  }
  return { deployment, revision: inputs };
}
