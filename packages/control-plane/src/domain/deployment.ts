import { BadRequestError, UnprocessableError } from "../errors.js";
import type { DeploymentCreateRequest, SourceRevisionConfigInput } from "../schemas/requests.js";
import { dnsLabelProblem } from "./kubernetes-names.js";
import { secretReferenceIssues } from "./kubernetes-rules.js";
import { normalizeResourceSpec } from "./resource-spec.js";
import {
  checkBuildOnPush,
  checkFieldsApply,
  checkHttpUrl,
  checkImageUri,
  checkName,
  checkRelativePath,
  checkRepoRef,
  sentFields,
} from "./rules.js";
import { checkSecretNames } from "./secrets.js";
import type {
  Deployment,
  Revision,
  RevisionInputs,
  Source,
  SourceConfig,
  SourceRevisionConfig,
} from "./types.js";

/** What the core needs from outside to judge a request (answered by storage, passed in). */
export interface RuleContext {
  /** Whether a listener with this id exists in the tenant. */
  listenerExists(id: string): boolean;
  /** The tenant's listeners' ids, in the order GET /v2/listeners lists them (newest first). */
  listenerIds(): readonly string[];
  /** The namespaces a listener serves (null: any), for `listener_config.cluster_namespace`. */
  listenerNamespaces?(id: string): string[] | null;
  /** Whether `path` was minted by upload-url for this deployment. */
  isUploadPath(path: string): boolean;
  /** Why a repository may not be cloned (unknown integration, a path outside the git hosts), or null. */
  repoUrlProblem(url: string, integrationId: string | null): string | null;
}

/** Ids and the clock, so the core stays deterministic in tests. */
export interface Stamp {
  now: string;
  newId(): string;
}

/** Sources whose revisions run a graph configuration from source code. */
const NEEDS_GRAPH_CONFIG: readonly Source[] = ["repo_host"];

/** Builds a SourceRevisionConfig from a request part (absent and null are the same). */
export function toSourceRevisionConfig(
  input: SourceRevisionConfigInput | null | undefined,
  base?: SourceRevisionConfig,
): SourceRevisionConfig {
  const pick = (value: string | null | undefined, kept: string | null | undefined) => value ?? kept ?? null;
  return {
    repo_ref: pick(input?.repo_ref, base?.repo_ref),
    graph_config_path: pick(input?.graph_config_path, base?.graph_config_path),
    image_uri: pick(input?.image_uri, base?.image_uri),
    source_tarball_path: pick(input?.source_tarball_path, base?.source_tarball_path),
    // The commit is resolved by a build, never taken from a client.
    repo_commit_sha: null,
    tracked_packages: base?.tracked_packages ?? null,
  };
}

/**
 * Whether a data-plane listener runs the deployment (an external_container with a listener_id, or
 * an internal_container the control plane placed on its workspace's listener):
 * its revisions wait at AWAITING_DEPLOY for the listener, which reports their progress.
 */
export function runsOnListener(deployment: Pick<Deployment, "source" | "source_config">): boolean {
  return (
    (deployment.source === "external_container" || deployment.source === "internal_container") &&
    deployment.source_config.listener_id !== null
  );
}

/** Whether a revision names something to build or deploy. */
export function hasArtifact(
  source: Source,
  config: SourceRevisionConfig,
  sourceConfig: SourceConfig,
): boolean {
  switch (source) {
    case "repo_host":
      // Without a ref the builder checks out the repository's default branch.
      return sourceConfig.repo_url !== null;
    case "internal_source":
      return config.source_tarball_path !== null;
    case "external_container":
    case "internal_container":
      return config.image_uri !== null;
    case "internal_template":
      return true;
  }
}

/** Checks one revision's inputs against its source: required paths, refs, images, tarballs, secrets. */
export function checkRevisionInputs(source: Source, inputs: RevisionInputs, ctx: RuleContext): void {
  const rc = inputs.source_revision_config;
  if (NEEDS_GRAPH_CONFIG.includes(source) && rc.graph_config_path === null) {
    throw new BadRequestError(`source_revision_config.graph_config_path is required for source '${source}'.`);
  }
  if (source === "internal_source" && rc.source_tarball_path !== null && rc.graph_config_path === null) {
    throw new BadRequestError(
      "source_revision_config.graph_config_path is required with source_revision_config.source_tarball_path.",
    );
  }
  if (rc.repo_ref !== null) checkRepoRef(rc.repo_ref);
  if (rc.graph_config_path !== null) {
    checkRelativePath(rc.graph_config_path, "source_revision_config.graph_config_path");
  }
  if (rc.image_uri !== null) checkImageUri(rc.image_uri);
  if (rc.source_tarball_path !== null && !ctx.isUploadPath(rc.source_tarball_path)) {
    throw new BadRequestError(
      "source_revision_config.source_tarball_path must be an object_path returned by POST /v2/deployments/{deployment_id}/upload-url for this deployment.",
    );
  }
  checkSecretNames(inputs.secrets, inputs.secret_references);
  const issues = secretReferenceIssues(inputs.secret_references);
  if (issues.length > 0) throw new UnprocessableError(issues);
}

/** Checks the deployment-level configuration: URLs, listener placement, tag refs. */
export function checkSourceConfig(config: SourceConfig, repoRef: string | null, ctx: RuleContext): void {
  if (config.repo_url !== null) {
    const problem = ctx.repoUrlProblem(config.repo_url, config.integration_id);
    if (problem) throw new BadRequestError(`source_config.repo_url: ${problem}`);
  }
  if (config.custom_url !== null) checkHttpUrl(config.custom_url, "source_config.custom_url");
  if (config.listener_id !== null && !ctx.listenerExists(config.listener_id)) {
    throw new BadRequestError(`source_config.listener_id: listener ${config.listener_id} not found.`);
  }
  if (config.listener_config?.cluster_namespace && config.listener_id === null) {
    throw new BadRequestError(
      "source_config.listener_config.cluster_namespace requires source_config.listener_id.",
    );
  }
  const namespace = config.listener_config?.cluster_namespace;
  const namespaceProblem = namespace ? dnsLabelProblem(namespace) : null;
  if (namespaceProblem) {
    throw new UnprocessableError([
      {
        loc: ["body", "source_config", "listener_config", "cluster_namespace"],
        msg: `a namespace name ${namespaceProblem}`,
        type: "value_error",
      },
    ]);
  }
  const served = config.listener_id !== null ? ctx.listenerNamespaces?.(config.listener_id) : null;
  if (namespace && served && !served.includes(namespace)) {
    throw new BadRequestError(
      `source_config.listener_config.cluster_namespace: '${namespace}' is not one of the listener's namespaces (${served.join(", ") || "none"}).`,
    );
  }
  checkBuildOnPush(config.build_on_push, repoRef);
}

/**
 * An external_container in a workspace that has listeners must name one: nothing else can run an
 * image (the local runtime refuses them), so created unplaced it would only fail later. The real
 * service refuses it with this 400, word for word: the official CLIs match `listener_id' is
 * required` in it and tell the user to pass `--listener-id` (the ids as a Python list prints them).
 * A workspace without listeners keeps creating such deployments as before.
 */
function requireListenerWhenAny(ctx: RuleContext): void {
  const ids = ctx.listenerIds();
  if (ids.length === 0) return;
  throw new BadRequestError(
    `Source configuration error: 'source_config.listener_id' is required for workspace with available listener IDs: [${ids.map((id) => `'${id}'`).join(", ")}]`,
  );
}

/** The deployment's view of its latest revision's inputs. */
export function withRevisionInputs(deployment: Deployment, inputs: RevisionInputs): Deployment {
  return {
    ...deployment,
    source_revision_config: inputs.source_revision_config,
    secrets: inputs.secrets,
    secret_references: inputs.secret_references,
    source_config: {
      ...deployment.source_config,
      resource_spec: inputs.resource_spec,
      install_command: inputs.install_command,
      build_command: inputs.build_command,
    },
  };
}

/** A new revision of `deployment` with `inputs`, in CREATING. */
export function newRevision(deployment: Deployment, inputs: RevisionInputs, stamp: Stamp): Revision {
  return {
    ...inputs,
    id: stamp.newId(),
    deployment_id: deployment.id,
    tenant_id: deployment.tenant_id,
    source: deployment.source,
    status: "CREATING",
    created_at: stamp.now,
    updated_at: stamp.now,
  };
}

/**
 * Validates a create request and plans the new deployment with its first revision (400 on a
 * business rule; the schema has already given 422 for malformed input).
 */
export function planCreate(
  request: DeploymentCreateRequest,
  tenantId: string,
  ctx: RuleContext,
  stamp: Stamp,
): { deployment: Deployment; revision: Revision } {
  checkName(request.name);
  const source = request.source;
  checkFieldsApply(source, sentFields(request));
  const sc = request.source_config;
  const cloud = source !== "external_container";
  const sourceConfig: SourceConfig = {
    integration_id: sc.integration_id ?? null,
    repo_url: sc.repo_url ?? null,
    deployment_type: sc.deployment_type ?? (cloud ? "prod" : null),
    build_on_push: sc.build_on_push ?? (source === "repo_host" ? false : null),
    custom_url: sc.custom_url ?? null,
    resource_spec: source === "external_container" ? normalizeResourceSpec(sc.resource_spec ?? {}) : null,
    listener_id: sc.listener_id ?? null,
    listener_config: sc.listener_config
      ? { cluster_namespace: sc.listener_config.cluster_namespace ?? null }
      : null,
    install_command: sc.install_command ?? null,
    build_command: sc.build_command ?? null,
    template_id: sc.template_id ?? null,
  };
  const inputs: RevisionInputs = {
    source_revision_config: toSourceRevisionConfig(request.source_revision_config),
    resource_spec: sourceConfig.resource_spec,
    install_command: sourceConfig.install_command,
    build_command: sourceConfig.build_command,
    secrets: request.secrets.map((s) => ({ name: s.name, value: s.value })),
    secret_references: (request.secret_references ?? []).map((r) => ({ ...r })),
  };
  if (source === "internal_template" && sourceConfig.template_id === null) {
    throw new BadRequestError(
      "source_config.template_id is required for source 'internal_template' (GET /v2/templates lists them).",
    );
  }
  if (source === "repo_host" && sourceConfig.repo_url === null) {
    throw new BadRequestError("source_config.repo_url is required for source 'repo_host'.");
  }
  if (source === "external_container" && inputs.source_revision_config.image_uri === null) {
    // Without an image there is nothing to run: refused now rather than left CREATING.
    throw new UnprocessableError([
      {
        loc: ["body", "source_revision_config", "image_uri"],
        msg: "Field required: an external_container deployment runs this image",
        type: "missing",
      },
    ]);
  }
  if (source === "external_container" && sourceConfig.listener_id === null) requireListenerWhenAny(ctx);
  checkSourceConfig(sourceConfig, inputs.source_revision_config.repo_ref, ctx);
  checkRevisionInputs(source, inputs, ctx);
  const base: Deployment = {
    id: stamp.newId(),
    tenant_id: tenantId,
    name: request.name,
    display_name: null,
    source,
    source_config: sourceConfig,
    source_revision_config: inputs.source_revision_config,
    secrets: inputs.secrets,
    secret_references: inputs.secret_references,
    status: "AWAITING_DATABASE",
    latest_revision_id: null,
    active_revision_id: null,
    image_version: null,
    delete_tracing_project: false,
    vocabulary: "neutral",
    created_at: stamp.now,
    updated_at: stamp.now,
  };
  const revision = newRevision(base, inputs, stamp);
  return { deployment: { ...base, latest_revision_id: revision.id }, revision };
}

/** The revision inputs a deployment currently shows (those of its latest revision). */
export function inputsOf(deployment: Deployment): RevisionInputs {
  return {
    source_revision_config: deployment.source_revision_config,
    resource_spec: deployment.source_config.resource_spec,
    install_command: deployment.source_config.install_command,
    build_command: deployment.source_config.build_command,
    secrets: deployment.secrets,
    secret_references: deployment.secret_references,
  };
}
