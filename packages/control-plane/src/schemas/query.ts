import { z } from "zod";
import { DEPLOYMENT_TYPES } from "./requests.js";

/** `{deployment_id}` path parameter. */
export const DeploymentParams = z.object({ deployment_id: z.uuid() });
/** `{deployment_id}/revisions/{revision_id}` path parameters. */
export const RevisionParams = z.object({ deployment_id: z.uuid(), revision_id: z.uuid() });
/** `{project_id}` path parameter. */
export const ProjectParams = z.object({ project_id: z.uuid() });

/** A comma-separated query list (`a,b`) or a repeated parameter (`?x=a&x=b`), as a string array. */
export const CsvList = z.union([z.string(), z.array(z.string())]).transform((value) =>
  (Array.isArray(value) ? value : [value])
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== ""),
);

const UuidList = CsvList.pipe(z.array(z.uuid()).max(100));

/** `limit` and `offset` of every list (limit 1–100, default 20). */
export const Page = {
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
};

const QueryBool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

/**
 * `GET /v2/deployments` query: the published API's filters. An empty `name_contains` means no
 * filter (what `langgraph deploy list` sends). Berth has no deployment tags, so a `tag_value_ids`
 * filter matches nothing; `remote_reconciled` picks the deployments a listener runs.
 */
export const DeploymentListQuery = z.object({
  ...Page,
  name_contains: z.string().max(1024).optional(),
  name: z.string().max(1024).optional(),
  status: CsvList.optional(),
  deployment_ids: UuidList.optional(),
  deployment_type: z.enum(DEPLOYMENT_TYPES).optional(),
  image_version: z.string().max(1024).optional(),
  remote_reconciled: QueryBool.optional(),
  tag_value_ids: CsvList.optional(),
});
/** Validated list query. */
export type DeploymentListQuery = z.output<typeof DeploymentListQuery>;

/** `GET …/revisions` query. */
export const RevisionListQuery = z.object({ ...Page, status: CsvList.optional() });
/** Validated revisions list query. */
export type RevisionListQuery = z.output<typeof RevisionListQuery>;

/** `GET /v2/deployments/latest-revision-statuses` query: up to 100 deployment ids. */
export const LatestRevisionStatusesQuery = z.object({
  deployment_ids: CsvList.pipe(z.array(z.uuid()).min(1).max(100)),
});

/** `DELETE /v2/deployments/{id}` query. */
export const DeploymentDeleteQuery = z.object({
  delete_tracing_project: QueryBool.default(false),
  force: QueryBool.default(false),
});

/** Bulk `DELETE /v2/deployments` query. */
export const BulkDeleteQuery = z.object({
  deployment_ids: CsvList.pipe(z.array(z.uuid()).min(1).max(100)),
  delete_tracing_project: QueryBool.default(false),
});

/** `GET /v2/tracing-projects` query. */
export const ProjectListQuery = z.object({ ...Page, name: z.string().max(1024).optional() });
