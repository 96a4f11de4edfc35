// The storage contract on the PostgreSQL adapter (needs DATABASE_URL, as CI sets; skips without).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it, test } from "node:test";
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

    it("refuses a schema name that is not a plain identifier", async () => {
      await assert.rejects(
        openPostgresStorage(url, box(), { schema: 'x"; drop' }),
        /Invalid PostgreSQL schema/,
      );
    });
  });
}
