// A SQLite file written by several processes (the agent server's shared data directory): Kysely's
// transactions must take the write lock at BEGIN. A deferred one reads under a snapshot, and when
// another connection commits before its first write, that write fails at once with
// SQLITE_BUSY_SNAPSHOT, whatever the busy timeout.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { openSqliteFile } from "../src/index.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-sqlite-shared-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A Kysely database on `file` and a second connection standing for another process. */
function open(file: string, immediateTransactions: boolean) {
  const db = new Kysely<{ t: { n: number } }>({
    dialect: new SqliteDialect({ database: openSqliteFile(file, { immediateTransactions }) }),
  });
  const other = new Database(file);
  other.pragma("busy_timeout = 0");
  return { db, other };
}

/** A transaction that reads, lets the other connection try to write, then writes. */
async function readThenWrite(file: string, immediate: boolean): Promise<{ other: string; own: string }> {
  const { db, other } = open(file, immediate);
  await sql`create table if not exists t (n integer)`.execute(db);
  const outcome = { other: "", own: "" };
  try {
    await db.transaction().execute(async (trx) => {
      await trx.selectFrom("t").selectAll().execute();
      try {
        other.prepare("insert into t (n) values (1)").run();
        outcome.other = "written";
      } catch (error) {
        outcome.other = (error as { code?: string }).code ?? "error";
      }
      await trx.insertInto("t").values({ n: 2 }).execute();
      outcome.own = "written";
    });
  } catch (error) {
    outcome.own = (error as { code?: string }).code ?? "error";
  } finally {
    other.close();
    await db.destroy();
  }
  return outcome;
}

describe("openSqliteFile({ immediateTransactions })", () => {
  it("makes a transaction hold the write lock from BEGIN, so its own write never fails on a stale snapshot", async () => {
    const outcome = await readThenWrite(path.join(dir, "immediate.sqlite"), true);
    assert.deepEqual(outcome, { other: "SQLITE_BUSY", own: "written" });
  });

  it("without it, the other connection's commit makes the transaction's write fail (the pitfall it avoids)", async () => {
    const outcome = await readThenWrite(path.join(dir, "deferred.sqlite"), false);
    assert.deepEqual(outcome, { other: "written", own: "SQLITE_BUSY_SNAPSHOT" });
  });
});
