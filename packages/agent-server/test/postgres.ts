// PostgreSQL for tests: the server CI exports as DATABASE_URL, and one fresh schema per use.
import { randomBytes } from "node:crypto";
import { after } from "node:test";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { postgresCheckpointer } from "../src/storage/postgres/checkpoint-admin.js";

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

/**
 * For a suite (call it inside `describe`): a factory of Berth's checkpointer and the official one
 * on one pool, each in a fresh schema; the pools are ended and the schemas dropped after the suite.
 */
export function checkpointerSchemas(url: string | undefined) {
  const schemas: string[] = [];
  const pools: pg.Pool[] = [];
  after(async () => {
    await Promise.all(pools.map((p) => p.end()));
    if (url) await dropSchemas(url, schemas);
  });
  return async () => {
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    pools.push(pool);
    const ours = freshSchemaName();
    const theirs = freshSchemaName();
    schemas.push(ours, theirs);
    const berth = postgresCheckpointer(pool, ours).saver;
    const official = new PostgresSaver(pool, undefined, { schema: theirs });
    await berth.setup();
    await official.setup();
    return { berth, official, pool, schema: ours };
  };
}

/** The text of every statement sent through `pool.query` from now on that `keep` accepts. */
export function recordQueries(pool: pg.Pool, keep: (text: string) => boolean): string[] {
  const sent: string[] = [];
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  (pool as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args) => {
    const first = args[0] as string | { text: string };
    const text = typeof first === "string" ? first : first.text;
    if (keep(text)) sent.push(text);
    return query(...args);
  };
  return sent;
}
