// Migration 0050_resource_spec_declared on a database made before it: resource_specs stored with
// every derived default written out (limits, queue sizes) keep only the values that differ from
// their defaults, so a read-modify-write of an existing deployment follows new requests too; what
// the specs mean (their effective values) is unchanged.
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { migrateToLatest, openSqliteFile } from "@berth-platform/server-kit";
import { makeTempDir } from "@berth-platform/testkit";
import { Kysely, type MigrationProvider, SqliteDialect, sql } from "kysely";
import { effectiveResourceSpec, normalizeResourceSpec } from "../src/domain/resource-spec.js";
import type { ResourceSpec } from "../src/domain/types.js";
import { ResourceSpecInput } from "../src/schemas/resource-spec.js";
import { migrationsFor } from "../src/storage/sql/migrations.js";
import { sqliteDialect } from "../src/storage/sqlite/dialect.js";

function before(from: string): MigrationProvider {
  return {
    async getMigrations() {
      const all = await migrationsFor(sqliteDialect).getMigrations();
      return Object.fromEntries(Object.entries(all).filter(([name]) => name < from));
    },
  };
}

/** A spec as older versions stored it: every default written out. */
const writtenOut = (input: unknown) =>
  effectiveResourceSpec(normalizeResourceSpec(ResourceSpecInput.parse(input)));

describe("migration 0050_resource_spec_declared", () => {
  it("drops derived values equal to their defaults from deployments and revisions, keeps chosen ones", async () => {
    const temp = makeTempDir("berth-migration-");
    const db = new Kysely<unknown>({
      dialect: new SqliteDialect({ database: openSqliteFile(path.join(temp.dir, "cp.sqlite")) }),
    });
    try {
      await migrateToLatest(db, before("0050"));
      const now = new Date().toISOString();
      const old = writtenOut({ cpu: 1, queue_cpu_limit: 6 });
      const { labels: _dropped, ...olderStill } = writtenOut({ cpu: 2 });
      await sql`insert into tenants (id, name, created_at) values ('t1', 't', ${now})`.execute(db);
      const deployment = (id: string, source: string, config: unknown) =>
        sql`insert into deployments (id, tenant_id, name, source, source_config, source_revision_config,
          secrets, secret_references, status, created_at, updated_at)
          values (${id}, 't1', ${id}, ${source}, ${JSON.stringify(config)}, '{}', '[]', '[]', 'READY', ${now}, ${now})`.execute(
          db,
        );
      await deployment("ext", "external_container", { listener_id: null, resource_spec: old });
      await deployment("field-missing", "external_container", { resource_spec: olderStill });
      await deployment("repo", "repo_host", { resource_spec: null });
      const revision = (id: string, spec: unknown) =>
        sql`insert into revisions (id, deployment_id, tenant_id, source, status, source_revision_config,
          resource_spec, secrets, secret_references, created_at, updated_at)
          values (${id}, 'ext', 't1', 'external_container', 'DEPLOYED', '{}', ${spec === null ? null : JSON.stringify(spec)},
          '[]', '[]', ${now}, ${now})`.execute(db);
      await revision("r-spec", old);
      await revision("r-none", null);

      await migrateToLatest(db, migrationsFor(sqliteDialect));

      const specOf = async (id: string) => {
        const row = await sql<{ source_config: string }>`
          select source_config from deployments where id = ${id}`.execute(db);
        return (JSON.parse(row.rows[0]?.source_config ?? "{}") as { resource_spec: ResourceSpec | null })
          .resource_spec;
      };
      const ext = await specOf("ext");
      assert.ok(ext);
      assert.deepEqual(
        [ext.cpu, ext.cpu_limit, ext.queue_cpu, ext.queue_cpu_limit, ext.memory_limit_mb],
        [1, null, null, 6, null],
      );
      assert.deepEqual(effectiveResourceSpec(ext), old, "the effective spec is unchanged");
      const missing = await specOf("field-missing");
      assert.ok(missing);
      assert.equal(missing.labels, null, "a field the row lacked is null");
      assert.equal(missing.cpu_limit, null);
      assert.equal(await specOf("repo"), null);

      const revisions = await sql<{ id: string; resource_spec: string | null }>`
        select id, resource_spec from revisions order by id`.execute(db);
      const [none, withSpec] = revisions.rows;
      assert.equal(none?.resource_spec, null);
      assert.deepEqual(effectiveResourceSpec(JSON.parse(withSpec?.resource_spec ?? "null")), old);
      assert.equal((JSON.parse(withSpec?.resource_spec ?? "{}") as ResourceSpec).cpu_limit, null);
    } finally {
      await db.destroy();
      temp.cleanup();
    }
  });
});
