import type { SqlDialect } from "@berth-platform/server-kit";
import { type RawBuilder, sql } from "kysely";
import type { RunStatus } from "../../domain/tracing.js";

// Conditions on a project's root runs (`tracing_runs` unaliased in the outer query) that look at
// the whole tree: a trace fails when any of its runs fails (issue 30), and a search finds a trace
// by the text of any of its runs. Both are subqueries on the tenant's and project's runs, so they
// use the (tenant, trace) and (project, start) indexes and never reach another workspace.

/** Ids of the project's traces that hold a failed run, at any depth. */
function failedTraces(tenantId: string, projectId: string): RawBuilder<string> {
  // `trace_id is not null`: a NULL in a `not in` list would make every comparison unknown.
  return sql<string>`select f.trace_id from tracing_runs as f where f.tenant_id = ${tenantId} and f.project_id = ${projectId} and f.error is not null and f.trace_id is not null`;
}

/** The root's trace failed: the root itself or any run under it. */
export function traceFailed(tenantId: string, projectId: string): RawBuilder<boolean> {
  return sql<boolean>`(tracing_runs.error is not null or tracing_runs.id in (${failedTraces(tenantId, projectId)}))`;
}

/** A trace's status from its tree: error when any run failed, else the root's own. */
export function traceStatusIs(status: RunStatus, tenantId: string, projectId: string): RawBuilder<boolean> {
  const failed = traceFailed(tenantId, projectId);
  if (status === "error") return failed;
  const ended = status === "success" ? sql`is not null` : sql`is null`;
  return sql<boolean>`(not ${failed} and tracing_runs.end_ms ${ended})`;
}

/**
 * Some run of the root's trace holds `text` (case folded, literally: `%` and `_` are not
 * wildcards) in its id, name, tags, metadata (the `extra` JSON), inputs or outputs.
 */
export function traceMentions(
  text: string,
  dialect: SqlDialect,
  tenantId: string,
  projectId: string,
): RawBuilder<boolean> {
  // The run's id too: a run id pasted from a log or the SDK finds its trace.
  const columns = ["m.id", "m.name", "m.tags", "m.extra", "m.inputs", "m.outputs"].map((c) =>
    dialect.contains(c, text, true),
  );
  return sql<boolean>`tracing_runs.id in (select m.trace_id from tracing_runs as m where m.tenant_id = ${tenantId} and m.project_id = ${projectId} and m.trace_id is not null and (${sql.join(columns, sql` or `)}))`;
}
