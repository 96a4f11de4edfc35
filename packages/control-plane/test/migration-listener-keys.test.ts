// Migration 0020_listener_keys on a database made before it: existing listener deployments get
// their `listener_id` column from the source_config JSON, so their listener finds them.
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { migrateToLatest, openSqliteFile } from "@berth-platform/server-kit";
import { makeTempDir } from "@berth-platform/testkit";
import { Kysely, type MigrationProvider, SqliteDialect, sql } from "kysely";
import { migrationsFor } from "../src/storage/sql/migrations.js";
import { sqliteDialect } from "../src/storage/sqlite/dialect.js";

/** The migrations, without those named from `from` on (the database as an older Berth left it). */
function before(from: string): MigrationProvider {
  return {
    async getMigrations() {
      const all = await migrationsFor(sqliteDialect).getMigrations();
      return Object.fromEntries(Object.entries(all).filter(([name]) => name < from));
    },
  };
}

describe("migration 0020_listener_keys", () => {
  it("backfills deployments.listener_id from source_config and adds the listener key columns", async () => {
    const temp = makeTempDir("berth-migration-");
    const db = new Kysely<unknown>({
      dialect: new SqliteDialect({ database: openSqliteFile(path.join(temp.dir, "cp.sqlite")) }),
    });
    try {
      await migrateToLatest(db, before("0020"));
      const now = new Date().toISOString();
      await sql`insert into tenants (id, name, created_at) values ('t1', 't', ${now})`.execute(db);
      const insert = (id: string, source: string, config: unknown) =>
        sql`insert into deployments (id, tenant_id, name, source, source_config, source_revision_config,
          secrets, secret_references, status, created_at, updated_at)
          values (${id}, 't1', ${id}, ${source}, ${JSON.stringify(config)}, '{}', '[]', '[]', 'READY', ${now}, ${now})`.execute(
          db,
        );
      await insert("on-listener", "external_container", { listener_id: "l-1", resource_spec: {} });
      await insert("no-listener", "external_container", { listener_id: null });
      await insert("from-source", "internal_source", {});
      await migrateToLatest(db, migrationsFor(sqliteDialect));
      const rows = await sql<{ id: string; listener_id: string | null }>`
        select id, listener_id from deployments order by id`.execute(db);
      assert.deepEqual(rows.rows, [
        { id: "from-source", listener_id: null },
        { id: "no-listener", listener_id: null },
        { id: "on-listener", listener_id: "l-1" },
      ]);
      const columns = await sql<{ name: string }>`select name from pragma_table_info('listeners')`.execute(
        db,
      );
      assert.ok(columns.rows.some((c) => c.name === "key_hash"));
      assert.ok(columns.rows.some((c) => c.name === "last_seen_at"));
    } finally {
      await db.destroy();
      temp.cleanup();
    }
  });
});
