// Migration 0050_resource_spec_declared on a database made before it (SQLite, and PostgreSQL when
// DATABASE_URL is set): resource_specs stored with every derived default written out (limits,
// queue sizes) keep only the values that differ from their defaults, so a read-modify-write of an
// existing deployment follows new requests too; what the specs mean (their effective values) is
// unchanged. Also 0051_listener_vocabulary: listeners made before it answer in the neutral names.
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { migrateToLatest, openSqliteFile, postgresDialect, sqliteDialect } from "@berth-platform/server-kit";
import { makeTempDir } from "@berth-platform/testkit";
import { Kysely, type MigrationProvider, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { effectiveResourceSpec, normalizeResourceSpec } from "../src/domain/resource-spec.js";
import type { ResourceSpec } from "../src/domain/types.js";
import { ResourceSpecInput } from "../src/schemas/resource-spec.js";
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

type Scenario = (
  db: Kysely<unknown>,
  provider: MigrationProvider,
  options: { migrationTableSchema?: string },
) => Promise<void>;

/** Runs `scenario` on a fresh SQLite file. */
async function onSqlite(scenario: Scenario): Promise<void> {
  const temp = makeTempDir("berth-migration-");
  const db = new Kysely<unknown>({
    dialect: new SqliteDialect({ database: openSqliteFile(path.join(temp.dir, "cp.sqlite")) }),
  });
  try {
    await scenario(db, migrationsFor(sqliteDialect), {});
  } finally {
    await db.destroy();
    temp.cleanup();
  }
}

/** Runs `scenario` in a fresh schema of the test PostgreSQL. */
async function onPostgres(scenario: Scenario): Promise<void> {
  const url = TEST_DATABASE_URL ?? "";
  const schema = await freshSchema(url);
  const db = new Kysely<unknown>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: schema.url }) }),
  });
  try {
    // Named: Kysely would otherwise take another schema's migration tables for this one's.
    await scenario(db, migrationsFor(postgresDialect), { migrationTableSchema: schema.name });
  } finally {
    await db.destroy();
    await dropSchema(url, schema.name);
  }
}

/** A spec as older versions stored it: every default written out. */
const writtenOut = (input: unknown) =>
  effectiveResourceSpec(normalizeResourceSpec(ResourceSpecInput.parse(input)));

const declaresSpecs: Scenario = async (db, provider, options) => {
  await migrateToLatest(db, before(provider, "0050"), options);
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

  await migrateToLatest(db, provider, options);

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
  const byId = new Map(revisions.rows.map((r) => [r.id, r.resource_spec]));
  assert.deepEqual([...byId.keys()].sort(), ["r-none", "r-spec"]);
  assert.equal(byId.get("r-none"), null);
  const withSpec = byId.get("r-spec") ?? "null";
  assert.deepEqual(effectiveResourceSpec(JSON.parse(withSpec)), old);
  assert.equal((JSON.parse(withSpec) as ResourceSpec).cpu_limit, null);
};

const neutralListeners: Scenario = async (db, provider, options) => {
  await migrateToLatest(db, before(provider, "0051"), options);
  const now = new Date().toISOString();
  await sql`insert into listeners (id, tenant_id, compute_type, compute_id, compute_config, created_at, updated_at)
    values ('l-1', 't1', 'kubernetes', 'c-1', ${JSON.stringify({ namespaces: ["agents"] })}, ${now}, ${now})`.execute(
    db,
  );
  await migrateToLatest(db, provider, options);
  const { rows } = await sql<{ id: string; vocabulary: string; compute_config: string }>`
    select id, vocabulary, compute_config from listeners`.execute(db);
  assert.deepEqual(
    rows.map((r) => [r.id, r.vocabulary, JSON.parse(r.compute_config)]),
    [["l-1", "neutral", { namespaces: ["agents"] }]],
  );
};

describe("migration 0050_resource_spec_declared", () => {
  const title =
    "drops derived values equal to their defaults from deployments and revisions, keeps chosen ones";
  it(`SQLite: ${title}`, () => onSqlite(declaresSpecs));
  it(`PostgreSQL: ${title}`, { skip: !TEST_DATABASE_URL && "DATABASE_URL is not set" }, () =>
    onPostgres(declaresSpecs),
  );
});

describe("migration 0051_listener_vocabulary", () => {
  const title = "listeners made before it answer in the neutral names";
  it(`SQLite: ${title}`, () => onSqlite(neutralListeners));
  it(`PostgreSQL: ${title}`, { skip: !TEST_DATABASE_URL && "DATABASE_URL is not set" }, () =>
    onPostgres(neutralListeners),
  );
});
