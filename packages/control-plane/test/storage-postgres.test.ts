// The storage contract on the PostgreSQL adapter (needs DATABASE_URL, as CI sets; skips without).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it, test } from "node:test";
import pg from "pg";
import { SecretBox } from "../src/secrets/box.js";
import { postgresDialect } from "../src/storage/postgres/dialect.js";
import { openPostgresStorage } from "../src/storage/postgres/index.js";
import { migrationsFor } from "../src/storage/sql/migrations.js";
import { dropSchema, freshSchema, freshSchemaName, query, TEST_DATABASE_URL } from "./postgres.js";
import { storageConformance } from "./storage-conformance.js";

const url = TEST_DATABASE_URL;
const box = () => new SecretBox(randomBytes(32));

if (url === undefined) {
  console.log("# DATABASE_URL is not set: the PostgreSQL storage tests are skipped.");
  test("storage conformance: postgres", { skip: "DATABASE_URL is not set" }, () => {});
} else {
  // The adapter creates the schema it is given; the suite drops it afterwards.
  storageConformance("postgres", async () => {
    const schema = freshSchemaName();
    const storage = await openPostgresStorage(url, box(), { schema });
    return {
      storage,
      async close() {
        await storage.close();
        await dropSchema(url, schema);
      },
    };
  });

  describe("postgres adapter", () => {
    it("without a schema option uses the connection's current schema; reopening keeps data and migrations", async () => {
      const schema = await freshSchema(url);
      try {
        const key = box();
        const first = await openPostgresStorage(schema.url, key);
        await first.tenants.create({ id: "t1", name: "one", created_at: new Date().toISOString() });
        await first.close();
        const again = await openPostgresStorage(schema.url, key);
        assert.equal(await again.tenants.count(), 1);
        await again.close();
        const rows = await query(url, `select count(*)::int as n from "${schema.name}".kysely_migration`);
        const all = await migrationsFor(postgresDialect).getMigrations();
        assert.equal(rows[0]?.n, Object.keys(all).length, "every migration recorded once");
      } finally {
        await dropSchema(url, schema.name);
      }
    });

    it("starts while another schema of the database is dropped: its migrations look at their own schema only", async () => {
      // Kysely's own check lists every column of every schema and looks each schema up by name as
      // it goes: a schema dropped while that query ran failed it ("schema … does not exist"). The
      // other schema's many columns keep the query running past the drop's commit.
      const other = freshSchemaName();
      const columns = Array.from({ length: 1_000 }, (_, i) => `c${i} int`).join(", ");
      const tables = Array.from({ length: 20 }, (_, i) => `create table "${other}".t${i} (${columns});`);
      await query(url, `create schema "${other}"; ${tables.join(" ")}`);
      const dropping = new pg.Client({ connectionString: url });
      await dropping.connect();
      const schema = freshSchemaName();
      try {
        await dropping.query(`begin; drop schema "${other}" cascade`);
        const opened = openPostgresStorage(url, box(), { schema });
        // Commits the drop as soon as a listing of every schema's columns is under way (if ever).
        const committed = (async () => {
          const end = Date.now() + 30_000;
          while (Date.now() < end) {
            // From another connection: a transaction sees the statistics of its first read only.
            const seen = await query(
              url,
              "select 1 from pg_stat_activity where state = 'active' and query like '%pg_get_serial' || '_sequence%'",
            );
            if (seen.length > 0) break;
            const done = opened.then(
              () => true,
              () => true,
            );
            if (await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 5, false))])) break;
          }
          await dropping.query("commit");
        })();
        const [storage] = await Promise.all([opened, committed]);
        assert.equal(await storage.tenants.count(), 0);
        await storage.close();
      } finally {
        await dropping.end();
        await dropSchema(url, other);
        await dropSchema(url, schema);
      }
    });

    it("refuses a schema name that is not a plain identifier", async () => {
      await assert.rejects(
        openPostgresStorage(url, box(), { schema: 'x"; drop' }),
        /Invalid PostgreSQL schema/,
      );
    });
  });
}
