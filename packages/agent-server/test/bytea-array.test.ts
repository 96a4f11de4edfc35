// The bytea[] parser of the PostgreSQL pool gives what pg's own parser gives, for every shape the
// server can send (the checkpointer's 2-D blob arrays, NULLs, empty arrays and values) and falls
// back to pg's parser for the rest (escape-format bytea, arrays with explicit bounds).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import pg from "pg";
import { byteaArrayParser } from "../src/storage/postgres/bytea-array.js";

const BYTEA_ARRAY = 1001 as Parameters<typeof pg.types.getTypeParser>[0];
const pgParser = pg.types.getTypeParser(BYTEA_ARRAY, "text") as unknown as (text: string) => unknown;
const fast = byteaArrayParser(pgParser);
/** The fast path alone: throws where the fallback would be used. */
const fastOnly = byteaArrayParser(() => {
  throw new Error("fell back to pg's parser");
});

const hex = (s: string) => `"\\\\x${Buffer.from(s).toString("hex")}"`;

describe("bytea[] parser", () => {
  const cases: Array<[string, string]> = [
    ["empty", "{}"],
    ["one", `{${hex("hello")}}`],
    ["empty value", '{"\\\\x"}'],
    ["NULLs", `{NULL,${hex("a")},NULL}`],
    [
      "2-D, the checkpointer's blobs",
      `{{${hex("messages")},${hex("json")},${hex('[{"a":"\\""}]')}},{${hex("x")},${hex("empty")},NULL}}`,
    ],
    ["escape format (fallback)", '{"abc\\\\\\\\000",def}'],
    ["explicit bounds (fallback)", `[0:0]={${hex("z")}}`],
    ["odd hex (fallback)", '{"\\\\x123"}'],
  ];
  for (const [name, text] of cases) {
    it(`${name}: the same as pg's parser`, () => {
      assert.deepEqual(fast(text), pgParser(text));
      if (name.endsWith("(fallback)")) assert.throws(() => fastOnly(text), /fell back/);
      else assert.deepEqual(fastOnly(text), pgParser(text), "read without the fallback");
    });
  }

  it("a large blob is decoded whole", () => {
    const blob = "x".repeat(200_000);
    const [value] = fast(`{${hex(blob)}}`) as [Buffer];
    assert.equal(value.toString(), blob);
  });

  it("reads a checkpoint's blobs from the server as pg does", {
    skip: !process.env.DATABASE_URL && "DATABASE_URL is not set",
  }, async () => {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      const query = `select array_agg(array[c::bytea, t::bytea, b]) as blobs from (values
        ('messages', 'json', '\\x5b7b7d5d'::bytea), ('empty', 'empty', null), ('q"x', 'bytes', ''::bytea)) v(c, t, b)`;
      const raw = await client.query({ text: query, types: { getTypeParser: () => (v: string) => v } });
      const text = raw.rows[0].blobs as string;
      assert.deepEqual(fastOnly(text), pgParser(text));
      const rows = fast(text) as Buffer[][];
      assert.equal(String(rows[2]?.[0]), 'q"x');
    } finally {
      await client.end();
    }
  });
});
