// Migrations 0041_tracing_example_splits and 0042_tracing_dataset_versions on a database made before them (SQLite, and PostgreSQL when
// DATABASE_URL is set): examples stored without a split get LangSmith's base split in their
// metadata; others keep theirs; each example becomes its dataset's first version.
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { migrateToLatest, openSqliteFile, postgresDialect, sqliteDialect } from "@berth-platform/server-kit";
import { makeTempDir } from "@berth-platform/testkit";
import { Kysely, type MigrationProvider, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { migrationsFor } from "../src/storage/sql/migrations.js";
import { dropSchema, freshSchema, TEST_DATABASE_URL } from "./postgres.js";

/** The migrations named before `from` (the database as an older Berth left it). */
function before(provider: MigrationProvider, from: string): MigrationProvider {
  return {
    async getMigrations() {
      const all = await provider.getMigrations();
      return Object.fromEntries(Object.entries(all).filter(([name]) => name < from));
    },
  };
}

async function backfills(
  db: Kysely<unknown>,
  provider: MigrationProvider,
  options: { migrationTableSchema?: string } = {},
): Promise<void> {
  await migrateToLatest(db, before(provider, "0041"), options);
  const now = new Date().toISOString();
  const insert = (id: string, metadata: string | null) =>
    sql`insert into tracing_examples (tenant_id, id, dataset_id, inputs, metadata, created_at, modified_at)
      values ('t1', ${id}, 'd1', '{}', ${metadata}, ${now}, ${now})`.execute(db);
  await insert("none", null);
  await insert("some", JSON.stringify({ source: "seed", nested: { a: [1] } }));
  await insert("split", JSON.stringify({ dataset_split: ["train"] }));
  await migrateToLatest(db, provider, options);
  const { rows } = await sql<{ id: string; metadata: string }>`
    select id, metadata from tracing_examples order by id`.execute(db);
  assert.deepEqual(
    rows.map((r) => [r.id, JSON.parse(r.metadata)]),
    [
      ["none", { dataset_split: ["base"] }],
      ["some", { source: "seed", nested: { a: [1] }, dataset_split: ["base"] }],
      ["split", { dataset_split: ["train"] }],
    ],
  );
  // 0042: each example is the first version of its dataset, at its modified_at.
  const versions = await sql<{ example_id: string; version_at: string; metadata: string }>`
    select example_id, version_at, metadata from tracing_example_versions order by example_id`.execute(db);
  assert.deepEqual(
    versions.rows.map((r) => [r.example_id, r.version_at, JSON.parse(r.metadata)]),
    rows.map((r) => [r.id, now, JSON.parse(r.metadata)]),
  );
}

describe("migrations 0041_tracing_example_splits and 0042_tracing_dataset_versions", () => {
  it("SQLite: examples without a split get the base split; each is its dataset's first version", async () => {
    const temp = makeTempDir("berth-migration-");
    const db = new Kysely<unknown>({
      dialect: new SqliteDialect({ database: openSqliteFile(path.join(temp.dir, "cp.sqlite")) }),
    });
    try {
      await backfills(db, migrationsFor(sqliteDialect));
    } finally {
      await db.destroy();
      temp.cleanup();
    }
  });

  it("PostgreSQL: examples without a split get the base split; each is its dataset's first version", {
    skip: !TEST_DATABASE_URL,
  }, async () => {
    const url = TEST_DATABASE_URL ?? "";
    const schema = await freshSchema(url);
    const db = new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: schema.url }) }),
    });
    try {
      // Named: Kysely would otherwise take another schema's migration tables for this one's.
      await backfills(db, migrationsFor(postgresDialect), { migrationTableSchema: schema.name });
    } finally {
      await db.destroy();
      await dropSchema(url, schema.name);
    }
  });
});
