import { type Kysely, type Migration, type MigrationProvider, sql } from "kysely";
import type { SqlDialect } from "./dialect.js";

/**
 * The agent server's schema for either dialect, one migration per change, applied at start-up.
 * JSON is stored as text on both (the stores parse it; containment filters run in code).
 */
function migrations(d: SqlDialect): Record<string, Migration> {
  return {
    "0001_initial": {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable("assistants")
          .addColumn("assistant_id", "text", (c) => c.primaryKey())
          .addColumn("graph_id", "text", (c) => c.notNull())
          .addColumn("config", "text", (c) => c.notNull())
          .addColumn("context", "text", (c) => c.notNull())
          .addColumn("metadata", "text", (c) => c.notNull())
          .addColumn("name", "text", (c) => c.notNull())
          .addColumn("description", "text")
          .addColumn("version", "integer", (c) => c.notNull())
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("updated_at", "text", (c) => c.notNull())
          .execute();
        await db.schema
          .createTable("threads")
          .addColumn("thread_id", "text", (c) => c.primaryKey())
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("updated_at", "text", (c) => c.notNull())
          .addColumn("state_updated_at", "text", (c) => c.notNull())
          .addColumn("metadata", "text", (c) => c.notNull())
          .addColumn("status", "text", (c) => c.notNull())
          .addColumn("config", "text", (c) => c.notNull())
          .addColumn("values", "text")
          .addColumn("interrupts", "text", (c) => c.notNull())
          .execute();
        await db.schema
          .createTable("runs")
          .addColumn("seq", d.seqType, d.seq)
          .addColumn("run_id", "text", (c) => c.notNull().unique())
          .addColumn("thread_id", "text", (c) =>
            c.notNull().references("threads.thread_id").onDelete("cascade"),
          )
          .addColumn("assistant_id", "text", (c) => c.notNull())
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("updated_at", "text", (c) => c.notNull())
          .addColumn("status", "text", (c) => c.notNull())
          .addColumn("metadata", "text", (c) => c.notNull())
          .addColumn("kwargs", "text", (c) => c.notNull())
          .addColumn("multitask_strategy", "text", (c) => c.notNull())
          .addColumn("attempt", "integer", (c) => c.notNull())
          .addColumn("available_at", d.bigIntType, (c) => c.notNull())
          .addColumn("lease_owner", "text")
          .addColumn("lease_token", "text")
          .addColumn("lease_expires_at", d.bigIntType)
          .addColumn("cancel_action", "text")
          .addColumn("error", "text")
          .execute();
        await db.schema.createIndex("runs_thread_seq").on("runs").columns(["thread_id", "seq"]).execute();
        await db.schema.createIndex("runs_status_seq").on("runs").columns(["status", "seq"]).execute();
        // The database itself guarantees one running run per thread, whatever the queue code does.
        await sql`CREATE UNIQUE INDEX runs_one_running_per_thread ON runs(thread_id) WHERE status = 'running'`.execute(
          db,
        );
      },
    },
    "0002_assistant_versions": {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable("assistant_versions")
          .addColumn("assistant_id", "text", (c) =>
            c.notNull().references("assistants.assistant_id").onDelete("cascade"),
          )
          .addColumn("version", "integer", (c) => c.notNull())
          .addColumn("graph_id", "text", (c) => c.notNull())
          .addColumn("config", "text", (c) => c.notNull())
          .addColumn("context", "text", (c) => c.notNull())
          .addColumn("metadata", "text", (c) => c.notNull())
          .addColumn("name", "text", (c) => c.notNull())
          .addColumn("description", "text")
          .addColumn("created_at", "text", (c) => c.notNull())
          .addPrimaryKeyConstraint("assistant_versions_pk", ["assistant_id", "version"])
          .execute();
        // Assistants created before versions were kept get their current state as a version.
        await sql`INSERT INTO assistant_versions
        SELECT assistant_id, version, graph_id, config, context, metadata, name, description, updated_at FROM assistants`.execute(
          db,
        );
      },
    },
    "0100_store": {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable("store_items")
          .addColumn("namespace", "text", (c) => c.notNull())
          .addColumn("key", "text", (c) => c.notNull())
          .addColumn("value", "text", (c) => c.notNull())
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("updated_at", "text", (c) => c.notNull())
          .addColumn("ttl_minutes", d.floatType)
          .addColumn("expires_at", d.bigIntType)
          .addPrimaryKeyConstraint("store_items_pk", ["namespace", "key"])
          .execute();
        await db.schema.createIndex("store_items_expires").on("store_items").column("expires_at").execute();
      },
    },
    "0101_crons": {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable("crons")
          .addColumn("cron_id", "text", (c) => c.primaryKey())
          .addColumn("assistant_id", "text", (c) => c.notNull())
          // A thread's crons go with it.
          .addColumn("thread_id", "text", (c) => c.references("threads.thread_id").onDelete("cascade"))
          .addColumn("user_id", "text")
          .addColumn("schedule", "text", (c) => c.notNull())
          .addColumn("timezone", "text", (c) => c.notNull())
          .addColumn("end_time", "text")
          .addColumn("payload", "text", (c) => c.notNull())
          .addColumn("metadata", "text", (c) => c.notNull())
          .addColumn("enabled", "integer", (c) => c.notNull())
          .addColumn("on_run_completed", "text")
          .addColumn("next_run_at", d.bigIntType)
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("updated_at", "text", (c) => c.notNull())
          .execute();
        await db.schema.createIndex("crons_due").on("crons").columns(["enabled", "next_run_at"]).execute();
        await db.schema.createIndex("crons_thread").on("crons").column("thread_id").execute();
      },
    },
    // A thread's pending and running runs, read at every run's create and end: through
    // runs_thread_seq those reads visited every run the thread ever had (issue 31: at turn 50 of a
    // chat, 56 µs of SQLite per run instead of 6). Not partial: the statements bind the statuses.
    "0105_runs_thread_status": {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createIndex("runs_thread_status")
          .on("runs")
          .columns(["thread_id", "status"])
          .execute();
      },
    },
  };
}

/**
 * Feeds the in-code migrations of `dialect` to Kysely's Migrator, with the adapter's own (`extra`:
 * PostgreSQL's run functions), ordered by name with the rest.
 */
export function migrationsFor(dialect: SqlDialect, extra: Record<string, Migration> = {}): MigrationProvider {
  return { getMigrations: async () => ({ ...migrations(dialect), ...extra }) };
}
