// A Kysely connection on a file another process writes waits for that process's write lock
// without blocking the event loop (SharedFileSqliteDialect), and then does its work.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { Kysely, sql } from "kysely";
import { openSqliteFile, SharedFileSqliteDialect } from "../src/index.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-busy-retry-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Holds the file's write lock from another connection for `ms`, counting event-loop ticks meanwhile. */
async function whileLocked<T>(
  file: string,
  ms: number,
  work: () => Promise<T>,
): Promise<{ result: T; ticks: number }> {
  const other = new Database(file);
  other.exec("begin immediate");
  other.prepare("insert into t values (0)").run();
  let ticks = 0;
  const ticker = setInterval(() => {
    ticks += 1;
  }, 5);
  const release = setTimeout(() => other.exec("commit"), ms);
  try {
    const result = await work();
    return { result, ticks };
  } finally {
    clearInterval(ticker);
    clearTimeout(release);
    other.close();
  }
}

describe("a shared SQLite file's Kysely connection", () => {
  it("waits for another connection's write lock without blocking the event loop", async () => {
    const file = path.join(dir, "a.sqlite");
    const database = openSqliteFile(file, { immediateTransactions: true });
    const db = new Kysely<{ t: { n: number } }>({ dialect: new SharedFileSqliteDialect(database) });
    await sql`create table t (n integer)`.execute(db);

    const started = Date.now();
    const autocommit = await whileLocked(file, 150, () => db.insertInto("t").values({ n: 1 }).execute());
    assert.ok(Date.now() - started >= 140, "the insert waited for the lock");
    assert.ok(autocommit.ticks >= 10, `the event loop kept turning (${autocommit.ticks} ticks of 5 ms)`);

    const transaction = await whileLocked(file, 100, () =>
      db.transaction().execute(async (trx) => {
        await trx.insertInto("t").values({ n: 2 }).execute();
        return trx
          .selectFrom("t")
          .select((eb) => eb.fn.countAll<number>().as("rows"))
          .executeTakeFirstOrThrow();
      }),
    );
    assert.equal(Number(transaction.result.rows), 4, "both inserts of the other connection and both of ours");
    assert.ok(transaction.ticks >= 5);
    await db.destroy();
  });

  it("a refused statement still fails after the busy timeout's 5 s", { timeout: 20_000 }, async () => {
    const file = path.join(dir, "b.sqlite");
    const database = openSqliteFile(file, { immediateTransactions: true });
    const db = new Kysely<{ t: { n: number } }>({ dialect: new SharedFileSqliteDialect(database) });
    await sql`create table t (n integer)`.execute(db);
    await assert.rejects(
      whileLocked(file, 8_000, () => db.insertInto("t").values({ n: 1 }).execute()),
      (error: { code?: string }) => error.code === "SQLITE_BUSY",
    );
    await db.destroy();
  });
});
