import type { SqlDialect } from "@berth-platform/server-kit";
import { type Kysely, type Migration, sql } from "kysely";

/**
 * The tracing tables' migrations, in `d`'s types. Mounted in the control plane, they join its own
 * migrations (same names as before the package existed, so databases migrated then see nothing
 * new); `tracing_projects` is made by the control plane's first migration there (deployments own
 * one each), and by `standaloneMigrations` when tracing runs alone.
 */
export const tracingMigrations = (d: SqlDialect): Record<string, Migration> => ({
  "0030_tracing": {
    // Traces sent by deployed agents (issue 17). One row per run, keyed by workspace and run id
    // (ids come from clients: another workspace's id must never reach this one's row).
    async up(db: Kysely<unknown>) {
      const t = db.schema
        .createTable("tracing_runs")
        .addColumn("seq", d.seqType, d.seq)
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("id", "text", (c) => c.notNull())
        .addColumn("project_id", "text")
        .addColumn("trace_id", "text")
        .addColumn("parent_run_id", "text")
        .addColumn("dotted_order", "text")
        .addColumn("name", "text")
        .addColumn("run_type", "text")
        .addColumn("start_ms", d.bigIntType)
        .addColumn("end_ms", d.bigIntType)
        .addColumn("error", "text")
        .addColumn("inputs", "text")
        .addColumn("outputs", "text")
        .addColumn("extra", "text")
        .addColumn("tags", "text");
      await t
        .addColumn("prompt_tokens", d.bigIntType)
        .addColumn("completion_tokens", d.bigIntType)
        .addColumn("total_tokens", d.bigIntType)
        .addColumn("thread_id", "text")
        .addColumn("agent_run_id", "text")
        .addColumn("graph_id", "text")
        .addColumn("size_bytes", d.bigIntType, (c) => c.notNull().defaultTo(0))
        .addColumn("received_ms", d.bigIntType, (c) => c.notNull())
        .addUniqueConstraint("tracing_runs_tenant_id", ["tenant_id", "id"])
        .execute();
      await db.schema
        .createIndex("tracing_runs_trace")
        .on("tracing_runs")
        .columns(["project_id", "trace_id"])
        .execute();
      await db.schema
        .createIndex("tracing_runs_project_start")
        .on("tracing_runs")
        .columns(["project_id", "start_ms"])
        .execute();
      await db.schema.createIndex("tracing_runs_start").on("tracing_runs").column("start_ms").execute();
    },
  },
  "0031_tracing_trace_index": {
    // A trace's runs (the trace view, its totals in lists, the SDK's `trace` filter) are read by
    // workspace and trace id, without the project: they need an index of their own.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex("tracing_runs_tenant_trace")
        .on("tracing_runs")
        .columns(["tenant_id", "trace_id"])
        .execute();
    },
  },
  "0032_tracing_run_writer": {
    // The deployment whose ingest key wrote a run (issue 27): another deployment's key may not
    // change it. Runs written before are given their project's deployment.
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("tracing_runs").addColumn("writer_deployment_id", "text").execute();
      await sql`update tracing_runs set writer_deployment_id = (
          select p.deployment_id from tracing_projects p where p.id = tracing_runs.project_id)`.execute(db);
    },
  },
});

/** The standalone server's migrations: the projects table, then the tracing tables. */
export const standaloneMigrations = (d: SqlDialect): Record<string, Migration> => ({
  "0001_tracing_projects": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("tracing_projects")
        .addColumn("seq", d.seqType, d.seq)
        .addColumn("id", "text", (c) => c.notNull().unique())
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("deployment_id", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addUniqueConstraint("tracing_projects_tenant_name", ["tenant_id", "name"])
        .execute();
    },
  },
  ...tracingMigrations(d),
});
