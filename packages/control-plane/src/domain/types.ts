export type { TracingProject } from "@berth-platform/tracing";

import type { Source } from "../schemas/requests.js";
import type { ResourceSpecInput } from "../schemas/resource-spec.js";
import type { DeploymentStatus } from "./deployment-status.js";
import type { RevisionStatus } from "./revision-status.js";

export type { Source } from "../schemas/requests.js";

/**
 * A ResourceSpec as stored and answered: every known field present (null when unset), rounded, the
 * base values filled in; derived defaults are left null and computed by `effectiveResourceSpec`.
 */
export type ResourceSpec = { [K in keyof ResourceSpecInput]-?: Exclude<ResourceSpecInput[K], undefined> };

/** Namespace placement of a self-hosted deployment. */
export interface ListenerConfig {
  cluster_namespace: string | null;
}

/** Deployment-level configuration (the fields that need no new revision, or cannot change). */
export interface SourceConfig {
  integration_id: string | null;
  repo_url: string | null;
  deployment_type: string | null;
  build_on_push: boolean | null;
  custom_url: string | null;
  resource_spec: ResourceSpec | null;
  listener_id: string | null;
  listener_config: ListenerConfig | null;
  install_command: string | null;
  build_command: string | null;
  /** The bundled template an internal_template deployment runs (immutable). */
  template_id: string | null;
}

/** Revision-level configuration: what a revision is built/deployed from. */
export interface SourceRevisionConfig {
  repo_ref: string | null;
  graph_config_path: string | null;
  image_uri: string | null;
  source_tarball_path: string | null;
  repo_commit_sha: string | null;
  tracked_packages: string[] | null;
}

/** A secret in plaintext: only ever held in memory; storage seals it, responses mask it. */
export interface Secret {
  name: string;
  value: string;
}

/** An environment variable filled from a key of an existing cluster secret. */
export interface SecretReference {
  name: string;
  secret_name: string;
  secret_key: string;
}

/** Everything one revision is made of; a deployment shows its latest revision's copy. */
export interface RevisionInputs {
  source_revision_config: SourceRevisionConfig;
  resource_spec: ResourceSpec | null;
  install_command: string | null;
  build_command: string | null;
  secrets: Secret[];
  secret_references: SecretReference[];
}

/** A deployment as the core sees it. */
export interface Deployment {
  id: string;
  tenant_id: string;
  name: string;
  display_name: string | null;
  source: Source;
  source_config: SourceConfig;
  source_revision_config: SourceRevisionConfig;
  secrets: Secret[];
  secret_references: SecretReference[];
  status: DeploymentStatus;
  latest_revision_id: string | null;
  active_revision_id: string | null;
  image_version: string | null;
  /** Set by DELETE: whether teardown also removes the tracing project. */
  delete_tracing_project: boolean;
  /** Which names responses use: the neutral ones, or the real service's (issue 13). */
  vocabulary: "neutral" | "real";
  created_at: string;
  updated_at: string;
}

/** A revision: an immutable set of inputs plus the status of its progress. */
export interface Revision extends RevisionInputs {
  id: string;
  deployment_id: string;
  tenant_id: string;
  source: Source;
  status: RevisionStatus;
  created_at: string;
  updated_at: string;
}

/** A data-plane listener: a cluster that polls the control plane and runs deployments in its namespaces. */
export interface Listener {
  id: string;
  tenant_id: string;
  version: string | null;
  compute_type: "cluster";
  /** User-chosen, unique in the workspace (a cluster name). */
  compute_id: string;
  compute_config: { cluster_namespaces: string[] | null };
  /** The names its create used (`k8s`, `k8s_namespaces`: real); answers use them for good. */
  vocabulary: "neutral" | "real";
  created_at: string;
  updated_at: string;
  /** When the listener last polled the control plane (null: never). */
  last_seen_at: string | null;
}
