// PostgreSQL for tests: the server CI exports as DATABASE_URL, and one fresh schema per use.
import { randomBytes } from "node:crypto";
import pg from "pg";

/** The PostgreSQL tests run against; undefined: those tests skip with a notice. */
export const TEST_DATABASE_URL = process.env.DATABASE_URL || undefined;

/** A new `as_test_<random>` schema name (not created: the backend creates it). */
export function freshSchemaName(): string {
  return `as_test_${randomBytes(6).toString("hex")}`;
}

/** Drops test schemas (and everything in them). */
export async function dropSchemas(url: string, names: string[]): Promise<void> {
  if (names.length === 0) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const name of names) await client.query(`drop schema if exists "${name}" cascade`);
  } finally {
    await client.end();
  }
}
