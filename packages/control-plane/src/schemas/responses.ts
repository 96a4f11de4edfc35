import { z } from "zod";
import { DEPLOYMENT_STATUSES } from "../domain/deployment-status.js";
import { REVISION_STATUSES } from "../domain/revision-status.js";
import { SOURCES } from "./requests.js";
import { ResourceSpecInput } from "./resource-spec.js";

/** SourceConfig as returned (every field present; `resource_spec` with its defaults). */
export const SourceConfigOut = z.object({
  integration_id: z.string().nullable(),
  repo_url: z.string().nullable(),
  deployment_type: z.string().nullable(),
  build_on_push: z.boolean().nullable(),
  custom_url: z.string().nullable(),
  resource_spec: ResourceSpecInput.nullable(),
  listener_id: z.string().nullable(),
  listener_config: z.object({ cluster_namespace: z.string().nullable() }).nullable(),
  install_command: z.string().nullable(),
  build_command: z.string().nullable(),
  template_id: z.string().nullable(),
});

/** SourceRevisionConfig as returned. */
export const SourceRevisionConfigOut = z.object({
  repo_ref: z.string().nullable(),
  graph_config_path: z.string().nullable(),
  image_uri: z.string().nullable(),
  source_tarball_path: z.string().nullable(),
  repo_commit_sha: z.string().nullable(),
  tracked_packages: z.array(z.string()).nullable(),
});

/** A Deployment response; secret values are always the mask. */
export const DeploymentOut = z.object({
  name: z.string(),
  source: z.enum(SOURCES),
  source_config: SourceConfigOut,
  source_revision_config: SourceRevisionConfigOut,
  secrets: z.array(z.object({ name: z.string(), value: z.string() })),
  secret_references: z.array(z.object({ name: z.string(), secret_name: z.string(), secret_key: z.string() })),
  id: z.uuid(),
  tenant_id: z.uuid(),
  created_at: z.string(),
  updated_at: z.string(),
  status: z.enum(DEPLOYMENT_STATUSES),
  latest_revision_id: z.uuid().nullable(),
  active_revision_id: z.uuid().nullable(),
  image_version: z.string().nullable(),
  display_name: z.string().nullable(),
});

/** A Revision response. */
export const RevisionOut = z.object({
  id: z.uuid(),
  deployment_id: z.uuid(),
  created_at: z.string(),
  updated_at: z.string(),
  status: z.enum(REVISION_STATUSES),
  source: z.enum(SOURCES),
  source_revision_config: SourceRevisionConfigOut,
});

/** One deployment's latest revision (Berth's batched read for lists; not in the real service). */
export const LatestRevisionStatusOut = z.object({
  deployment_id: z.uuid(),
  revision_id: z.uuid(),
  status: z.enum(REVISION_STATUSES),
  updated_at: z.string(),
});

/** A tracing project response. */
export const TracingProjectOut = z.object({
  id: z.uuid(),
  tenant_id: z.uuid(),
  name: z.string(),
  deployment_id: z.uuid().nullable(),
  created_at: z.string(),
});

/** The list envelope: `offset` is the value to send for the next page. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ resources: z.array(item), offset: z.number().int() });
}

/** `{detail: string}` (400, 401, 403, 404, 409, 413, 415). */
export const ErrorOut = z.object({ detail: z.string() });

/** FastAPI's HTTPValidationError (422). */
export const ValidationErrorOut = z.object({
  detail: z.array(
    z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() }),
  ),
});

/** One build or deploy log line. */
export const LogEntryOut = z.object({
  id: z.string(),
  timestamp: z.number(),
  level: z.string(),
  message: z.string(),
});

/** An empty body (204 No Content). */
export const NoContent = z.null().describe("No content");

/** Error responses every authenticated route can give. */
export const COMMON_ERRORS = {
  401: ErrorOut,
  403: ErrorOut,
  404: ErrorOut,
  422: ValidationErrorOut,
} as const;
