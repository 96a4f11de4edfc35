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
  "0033_tracing_feedback": {
    // Feedback on runs (issue 30), LangSmith's `/feedback`: keyed by workspace and id like runs.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("tracing_feedback")
        .addColumn("seq", d.seqType, d.seq)
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("id", "text", (c) => c.notNull())
        .addColumn("run_id", "text", (c) => c.notNull())
        .addColumn("trace_id", "text")
        .addColumn("key", "text", (c) => c.notNull())
        .addColumn("score", "double precision")
        .addColumn("value", "text")
        .addColumn("comment", "text")
        .addColumn("correction", "text")
        .addColumn("feedback_source", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addUniqueConstraint("tracing_feedback_tenant_id", ["tenant_id", "id"])
        .execute();
      await db.schema
        .createIndex("tracing_feedback_run")
        .on("tracing_feedback")
        .columns(["tenant_id", "run_id"])
        .execute();
    },
  },
  "0040_tracing_sdk": {
    // What the SDK's current API needs (issue 30): the model of a run (cost), its dataset example
    // (experiments), projects' description/metadata/dataset/end, feedback on projects, datasets
    // and examples, per-workspace model prices, shared runs.
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("tracing_runs").addColumn("model_name", "text").execute();
      await db.schema.alterTable("tracing_runs").addColumn("reference_example_id", "text").execute();
      for (const column of ["description", "extra", "reference_dataset_id"]) {
        await db.schema.alterTable("tracing_projects").addColumn(column, "text").execute();
      }
      await db.schema.alterTable("tracing_projects").addColumn("end_ms", d.bigIntType).execute();
      await db.schema.alterTable("tracing_feedback").addColumn("session_id", "text").execute();
      await db.schema.alterTable("tracing_feedback").addColumn("modified_at", "text").execute();
      await db.schema
        .createTable("tracing_datasets")
        .addColumn("seq", d.seqType, d.seq)
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("id", "text", (c) => c.notNull().unique())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("description", "text")
        .addColumn("data_type", "text", (c) => c.notNull())
        .addColumn("metadata", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("modified_at", "text", (c) => c.notNull())
        .addUniqueConstraint("tracing_datasets_tenant_name", ["tenant_id", "name"])
        .execute();
      await db.schema
        .createTable("tracing_examples")
        .addColumn("seq", d.seqType, d.seq)
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("id", "text", (c) => c.notNull().unique())
        .addColumn("dataset_id", "text", (c) => c.notNull())
        .addColumn("inputs", "text", (c) => c.notNull())
        .addColumn("outputs", "text")
        .addColumn("metadata", "text")
        .addColumn("source_run_id", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("modified_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("tracing_examples_dataset")
        .on("tracing_examples")
        .columns(["tenant_id", "dataset_id", "seq"])
        .execute();
      await db.schema
        .createTable("tracing_model_prices")
        .addColumn("seq", d.seqType, d.seq)
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("id", "text", (c) => c.notNull().unique())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("match_pattern", "text", (c) => c.notNull())
        .addColumn("prompt_cost", "double precision", (c) => c.notNull())
        .addColumn("completion_cost", "double precision", (c) => c.notNull())
        .addColumn("provider", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("tracing_run_shares")
        .addColumn("seq", d.seqType, d.seq)
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("run_id", "text", (c) => c.notNull())
        .addColumn("share_token", "text", (c) => c.notNull().unique())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addUniqueConstraint("tracing_run_shares_run", ["tenant_id", "run_id"])
        .execute();
    },
  },
  "0041_tracing_example_splits": {
    // Dataset splits (issue 30): LangSmith keeps an example's splits in `metadata.dataset_split`,
    // ["base"] when none was given; examples stored before get the base split, so split filters
    // and split lists read one form. Rewritten in code (JSON text on both databases), in pages.
    async up(db: Kysely<unknown>) {
      let after = -1;
      for (;;) {
        const { rows } = await sql<{ seq: number | string; metadata: string | null }>`
          select seq, metadata from tracing_examples where seq > ${after} order by seq limit 500`.execute(db);
        const last = rows.at(-1);
        if (!last) return;
        after = Number(last.seq);
        for (const row of rows) {
          const metadata = row.metadata ? (JSON.parse(row.metadata) as unknown) : {};
          if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) continue;
          if ("dataset_split" in metadata) continue;
          const next = JSON.stringify({ ...metadata, dataset_split: ["base"] });
          await sql`update tracing_examples set metadata = ${next} where seq = ${row.seq}`.execute(db);
        }
      }
    },
  },
  "0043_tracing_run_events": {
    // A run's events (start, end, streamed tokens) as the SDK sends them: read back as LangSmith
    // does, and the first token's time comes from them.
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("tracing_runs").addColumn("events", "text").execute();
    },
  },
  "0042_tracing_dataset_versions": {
    // Dataset versions (issue 30): each example's states, stamped with the version they made, and
    // tags naming versions. Examples stored before become the first version at their modified_at.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("tracing_example_versions")
        .addColumn("seq", d.seqType, d.seq)
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("dataset_id", "text", (c) => c.notNull())
        .addColumn("example_id", "text", (c) => c.notNull())
        .addColumn("version_at", "text", (c) => c.notNull())
        .addColumn("deleted", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("inputs", "text")
        .addColumn("outputs", "text")
        .addColumn("metadata", "text")
        .addColumn("source_run_id", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("modified_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("tracing_example_versions_dataset")
        .on("tracing_example_versions")
        .columns(["tenant_id", "dataset_id", "version_at"])
        .execute();
      await db.schema
        .createIndex("tracing_example_versions_example")
        .on("tracing_example_versions")
        .columns(["tenant_id", "example_id", "version_at"])
        .execute();
      await db.schema
        .createTable("tracing_dataset_tags")
        .addColumn("seq", d.seqType, d.seq)
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("dataset_id", "text", (c) => c.notNull())
        .addColumn("tag", "text", (c) => c.notNull())
        .addColumn("as_of", "text", (c) => c.notNull())
        .addUniqueConstraint("tracing_dataset_tags_tag", ["tenant_id", "dataset_id", "tag"])
        .execute();
      await sql`insert into tracing_example_versions (tenant_id, dataset_id, example_id, version_at,
          deleted, inputs, outputs, metadata, source_run_id, created_at, modified_at)
        select tenant_id, dataset_id, id, modified_at, 0, inputs, outputs, metadata, source_run_id,
          created_at, modified_at
        from tracing_examples order by seq`.execute(db);
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
