// PostgreSQL for tests: the server CI exports as DATABASE_URL, and one fresh schema per use.
import { randomBytes } from "node:crypto";
import pg from "pg";

/** The PostgreSQL tests run against; undefined: those tests skip with a notice. */
export const TEST_DATABASE_URL = process.env.DATABASE_URL || undefined;

/** A new `cp_test_<random>` schema name (not created). */
export function freshSchemaName(): string {
  return `cp_test_${randomBytes(6).toString("hex")}`;
}

/** Creates a fresh schema; returns its name and `url` with every connection's search_path set to it. */
export async function freshSchema(url: string): Promise<{ name: string; url: string }> {
  const name = freshSchemaName();
  await query(url, `create schema "${name}"`);
  const scoped = new URL(url);
  scoped.searchParams.set("options", `-c search_path=${name}`);
  return { name, url: scoped.toString() };
}

/** Drops a test schema and everything in it. */
export async function dropSchema(url: string, name: string): Promise<void> {
  await query(url, `drop schema if exists "${name}" cascade`);
}

/** Runs one statement on a connection of its own; returns the rows. */
export async function query(url: string, statement: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(statement)).rows;
  } finally {
    await client.end();
  }
}
