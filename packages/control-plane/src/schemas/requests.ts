import { z } from "zod";
import { ResourceSpecInput } from "./resource-spec.js";

/** Canonical source names (the real service's names are accepted as aliases, see aliases.ts). */
export const SOURCES = [
  "repo_host",
  "external_container",
  "internal_container",
  "internal_source",
  "internal_template",
] as const;
/** Where a deployment's code comes from. */
export type Source = (typeof SOURCES)[number];

/** Cloud deployment types (immutable). */
export const DEPLOYMENT_TYPES = ["dev_free", "dev", "prod", "dev_zero", "dev_free_zero"] as const;

const text = (max: number) => z.string().max(max);

/** ListenerConfig: the namespace a self-hosted deployment lands in. */
export const ListenerConfigInput = z.object({ cluster_namespace: text(63).nullish() });

/** SourceConfig fields a client may send (read-only ones are dropped). */
export const SourceConfigInput = z.object({
  integration_id: z.uuid().nullish(),
  repo_url: text(2048).nullish(),
  deployment_type: z.enum(DEPLOYMENT_TYPES).nullish(),
  build_on_push: z.boolean().nullish(),
  custom_url: text(2048).nullish(),
  resource_spec: ResourceSpecInput.nullish(),
  listener_id: z.uuid().nullish(),
  listener_config: ListenerConfigInput.nullish(),
  install_command: text(4096).nullish(),
  build_command: text(4096).nullish(),
  template_id: text(128).nullish(),
});
/** Validated SourceConfig input. */
export type SourceConfigInput = z.output<typeof SourceConfigInput>;

/** SourceRevisionConfig fields a client may send (`repo_commit_sha` is read-only and dropped). */
export const SourceRevisionConfigInput = z.object({
  repo_ref: text(255).nullish(),
  graph_config_path: text(1024).nullish(),
  image_uri: text(1024).nullish(),
  source_tarball_path: text(1024).nullish(),
});
/** Validated SourceRevisionConfig input. */
export type SourceRevisionConfigInput = z.output<typeof SourceRevisionConfigInput>;

/** A secret: becomes an environment variable of the deployment. */
export const SecretInput = z.object({ name: z.string().min(1).max(256), value: z.string().max(65_536) });

/** A reference to a key of an existing cluster secret. */
export const SecretReferenceInput = z.object({
  name: z.string().min(1).max(256),
  secret_name: z.string().min(1).max(253),
  secret_key: z.string().min(1).max(253),
});

const Secrets = z.array(SecretInput).max(500);
const SecretReferences = z.array(SecretReferenceInput).max(500);

/** `POST /v2/deployments` body. */
export const DeploymentCreateRequest = z.object({
  name: z.string().max(1024),
  source: z.enum(SOURCES),
  source_config: SourceConfigInput,
  source_revision_config: SourceRevisionConfigInput,
  secrets: Secrets,
  secret_references: SecretReferences.nullish(),
});
/** Validated create body. */
export type DeploymentCreateRequest = z.output<typeof DeploymentCreateRequest>;

/** Fields shared by PATCH and POST …/revisions: everything a new revision can take. */
const RevisionInputs = {
  revision_source: z.enum(SOURCES).nullish(),
  source_config: SourceConfigInput.nullish(),
  source_revision_config: SourceRevisionConfigInput.nullish(),
  secrets: Secrets.nullish(),
  secret_references: SecretReferences.nullish(),
  tracked_packages: z.array(text(512)).max(1000).nullish(),
};

/** `PATCH /v2/deployments/{id}` body. `name`/`source` are accepted only to refuse a change (400). */
export const DeploymentPatchRequest = z.object({
  ...RevisionInputs,
  display_name: z.string().min(1).max(256).nullish(),
  name: z.string().max(1024).nullish(),
  source: z.enum(SOURCES).nullish(),
});
/** Validated PATCH body. */
export type DeploymentPatchRequest = z.output<typeof DeploymentPatchRequest>;

/** `POST /v2/deployments/{id}/revisions` body (always creates a revision). */
export const RevisionCreateRequest = z.object(RevisionInputs);
/** Validated revision-create body. */
export type RevisionCreateRequest = z.output<typeof RevisionCreateRequest>;
