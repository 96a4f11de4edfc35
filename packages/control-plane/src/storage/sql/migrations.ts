import { tracingMigrations } from "@berth-platform/tracing";
import { type Kysely, type Migration, type MigrationProvider, sql } from "kysely";
import { withoutDerivedDefaults } from "../../domain/resource-spec.js";
import type { ResourceSpec } from "../../domain/types.js";
import { ResourceSpecInput } from "../../schemas/resource-spec.js";
import type { SqlDialect } from "./dialect.js";

/** A stored resource_spec without the derived defaults older versions wrote out. */
function declaredSpec(stored: Record<string, unknown>): ResourceSpec {
  // Rows written before a field existed lack it: absent is null, as everywhere else.
  const full = { ...stored };
  for (const key of Object.keys(ResourceSpecInput.shape)) full[key] = stored[key] ?? null;
  return withoutDerivedDefaults(full as ResourceSpec);
}

/**
 * The control plane's schema, one migration per change, applied at start-up. Written once for
 * both databases: only the auto-numbered `seq` keys and 64-bit integers differ (the dialect's
 * DDL part); JSON stays text so the row codec is shared.
 */
const migrations = (d: SqlDialect): Record<string, Migration> => ({
  "0001_initial": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("tenants")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("api_keys")
        .addColumn("key_hash", "text", (c) => c.primaryKey())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("api_key_tenants")
        .addColumn("key_hash", "text", (c) => c.notNull().references("api_keys.key_hash").onDelete("cascade"))
        .addColumn("tenant_id", "text", (c) => c.notNull().references("tenants.id").onDelete("cascade"))
        .addPrimaryKeyConstraint("api_key_tenants_pk", ["key_hash", "tenant_id"])
        .execute();
      await db.schema
        .createTable("deployments")
        .addColumn("seq", d.seqType, d.seq)
        .addColumn("id", "text", (c) => c.notNull().unique())
        .addColumn("tenant_id", "text", (c) => c.notNull().references("tenants.id"))
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("display_name", "text")
        .addColumn("source", "text", (c) => c.notNull())
        .addColumn("source_config", "text", (c) => c.notNull())
        .addColumn("source_revision_config", "text", (c) => c.notNull())
        .addColumn("secrets", "text", (c) => c.notNull())
        .addColumn("secret_references", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("latest_revision_id", "text")
        .addColumn("active_revision_id", "text")
        .addColumn("image_version", "text")
        .addColumn("delete_tracing_project", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addUniqueConstraint("deployments_tenant_name", ["tenant_id", "name"])
        .execute();
      await db.schema.createIndex("deployments_status").on("deployments").column("status").execute();
      await db.schema
        .createTable("revisions")
        .addColumn("seq", d.seqType, d.seq)
        .addColumn("id", "text", (c) => c.notNull().unique())
        .addColumn("deployment_id", "text", (c) =>
          c.notNull().references("deployments.id").onDelete("cascade"),
        )
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("source", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("source_revision_config", "text", (c) => c.notNull())
        .addColumn("resource_spec", "text")
        .addColumn("install_command", "text")
        .addColumn("build_command", "text")
        .addColumn("secrets", "text", (c) => c.notNull())
        .addColumn("secret_references", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("revisions_deployment_seq")
        .on("revisions")
        .columns(["deployment_id", "seq"])
        .execute();
      await db.schema.createIndex("revisions_status").on("revisions").column("status").execute();
      await db.schema
        .createTable("tracing_projects")
        .addColumn("seq", d.seqType, d.seq)
        .addColumn("id", "text", (c) => c.notNull().unique())
        .addColumn("tenant_id", "text", (c) => c.notNull().references("tenants.id"))
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("deployment_id", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addUniqueConstraint("tracing_projects_tenant_name", ["tenant_id", "name"])
        .execute();
    },
  },
  "0002_uploads": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("uploads")
        .addColumn("object_path", "text", (c) => c.primaryKey())
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("deployment_id", "text", (c) => c.notNull())
        .addColumn("token_hash", "text", (c) => c.notNull().unique())
        .addColumn("expires_at", "text", (c) => c.notNull())
        .addColumn("size", d.bigIntType)
        .addColumn("completed_at", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("uploads_deployment")
        .on("uploads")
        .columns(["tenant_id", "deployment_id"])
        .execute();
    },
  },
  "0003_revision_logs": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("revision_logs")
        .addColumn("seq", d.seqType, d.seq)
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("deployment_id", "text", (c) => c.notNull())
        .addColumn("revision_id", "text", (c) => c.notNull())
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("timestamp", d.bigIntType, (c) => c.notNull())
        .addColumn("level", "text", (c) => c.notNull())
        .addColumn("message", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("revision_logs_lookup")
        .on("revision_logs")
        .columns(["tenant_id", "deployment_id", "type", "seq"])
        .execute();
    },
  },
  "0004_listeners": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("listeners")
        .addColumn("seq", d.seqType, d.seq)
        .addColumn("id", "text", (c) => c.notNull().unique())
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("version", "text")
        .addColumn("compute_type", "text", (c) => c.notNull())
        .addColumn("compute_id", "text", (c) => c.notNull())
        .addColumn("compute_config", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addUniqueConstraint("listeners_tenant_compute", ["tenant_id", "compute_id"])
        .execute();
    },
  },
  "0013_api_keys": {
    // Keys become manageable (issue 13): a public id, a description, a recognisable prefix, a
    // role, an expiry and the last use. Keys made before this are the bootstrap admin keys.
    async up(db: Kysely<unknown>) {
      for (const column of ["id", "description", "short_key", "expires_at", "last_used_at"]) {
        await db.schema.alterTable("api_keys").addColumn(column, "text").execute();
      }
      await db.schema
        .alterTable("api_keys")
        .addColumn("role", "text", (c) => c.notNull().defaultTo("admin"))
        .execute();
      await sql`update api_keys set id = substr(key_hash, 1, 32) where id is null`.execute(db);
      await db.schema.createIndex("api_keys_id").unique().on("api_keys").column("id").execute();
    },
  },
  "0013_vocabulary": {
    // Responses answer each deployment in the names it was created with (issue 13); older
    // deployments were always answered in the neutral ones.
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable("deployments")
        .addColumn("vocabulary", "text", (c) => c.notNull().defaultTo("neutral"))
        .execute();
    },
  },
  "0020_listener_keys": {
    // The listener-facing API (issue 15): each listener authenticates with its own key (stored
    // hashed), its last poll says whether it is connected, and deployments are found by listener.
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("listeners").addColumn("key_hash", "text").execute();
      await db.schema.alterTable("listeners").addColumn("last_seen_at", "text").execute();
      await db.schema.alterTable("deployments").addColumn("listener_id", "text").execute();
      await db.schema.createIndex("deployments_listener").on("deployments").column("listener_id").execute();
      // Existing rows: the listener id lives in the source_config JSON (parsed here, not in SQL,
      // so one migration serves both databases).
      const rows = await sql<{ id: string; source_config: string }>`
        select id, source_config from deployments where source = 'external_container'`.execute(db);
      for (const row of rows.rows) {
        const listenerId = (JSON.parse(row.source_config) as { listener_id?: string | null }).listener_id;
        if (listenerId) {
          await sql`update deployments set listener_id = ${listenerId} where id = ${row.id}`.execute(db);
        }
      }
    },
  },
  "0050_resource_spec_declared": {
    // Derived resource_spec fields (limits, queue sizes) are no longer written out but computed
    // where used (docs/decisions.md), so a read-modify-write follows new requests. Specs stored
    // before drop the derived values that equal their defaults (their meaning is unchanged).
    async up(db: Kysely<unknown>) {
      const deployments = await sql<{ id: string; source_config: string }>`
        select id, source_config from deployments where source = 'external_container'`.execute(db);
      for (const row of deployments.rows) {
        const config = JSON.parse(row.source_config) as { resource_spec?: Record<string, unknown> | null };
        if (!config.resource_spec) continue;
        config.resource_spec = declaredSpec(config.resource_spec);
        await sql`update deployments set source_config = ${JSON.stringify(config)} where id = ${row.id}`.execute(
          db,
        );
      }
      const revisions = await sql<{ id: string; resource_spec: string }>`
        select id, resource_spec from revisions where resource_spec is not null`.execute(db);
      for (const row of revisions.rows) {
        const stored = JSON.parse(row.resource_spec) as Record<string, unknown> | null;
        if (!stored) continue;
        const declared = JSON.stringify(declaredSpec(stored));
        await sql`update revisions set resource_spec = ${declared} where id = ${row.id}`.execute(db);
      }
    },
  },
  "0051_listener_vocabulary": {
    // Listeners are answered in the names their create used (`k8s`, `k8s_namespaces` or the
    // neutral ones), as deployments are (0013_vocabulary); older ones answered neutrally.
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable("listeners")
        .addColumn("vocabulary", "text", (c) => c.notNull().defaultTo("neutral"))
        .execute();
    },
  },
});

/** Feeds the in-code migrations, in `dialect`'s types, to Kysely's Migrator. */
export function migrationsFor(dialect: SqlDialect): MigrationProvider {
  // The tracing package's tables live in the same database; its migrations sort among these by name.
  return { getMigrations: async () => ({ ...migrations(dialect), ...tracingMigrations(dialect) }) };
}
