// Background WAL checkpoints: with them a connection leaves the copy of its WAL into the database
// file to a worker thread, and the worker does it.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
// The built package: the worker thread runs dist/wal-checkpoint-worker.js.
import {
  BACKGROUND_AUTOCHECKPOINT_PAGES,
  openSqliteFile,
  startWalCheckpoints,
} from "@berth-platform/server-kit";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-wal-"));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("background WAL checkpoints", () => {
  it("a worker thread copies the WAL into the database file; the connection does not", async () => {
    const file = path.join(dir, "a.sqlite");
    const db = openSqliteFile(file, { backgroundCheckpoints: true });
    assert.equal(db.pragma("wal_autocheckpoint", { simple: true }), BACKGROUND_AUTOCHECKPOINT_PAGES);
    db.exec("create table t (n integer, pad text)");
    const insert = db.prepare("insert into t values (?, ?)");
    // ~1,500 commits of a page or more each: past SQLite's default threshold of 1,000 pages,
    // below the background one, so only the worker can have moved them.
    for (let i = 0; i < 1_500; i++) insert.run(i, "x".repeat(3_000));
    const before = fs.statSync(file).size;
    assert.ok(fs.statSync(`${file}-wal`).size > 4 * 1024 * 1024, "the WAL holds the commits");
    assert.ok(before < 1024 * 1024, `the connection did not checkpoint (database file ${before} bytes)`);

    const errors: string[] = [];
    const checkpoints = startWalCheckpoints([file], { intervalMs: 20, onError: (m) => errors.push(m) });
    const deadline = Date.now() + 10_000;
    while (fs.statSync(file).size < 4 * 1024 * 1024 && Date.now() < deadline) await sleep(20);
    await checkpoints.stop();
    assert.ok(fs.statSync(file).size >= 4 * 1024 * 1024, "the worker copied the pages into the file");
    assert.deepEqual(errors, []);
    assert.equal(db.prepare("select count(*) from t").pluck().get(), 1_500);
    db.close();
  });

  it("reports a file it cannot open, and stops", async () => {
    const errors: string[] = [];
    const checkpoints = startWalCheckpoints([path.join(dir, "missing.sqlite")], {
      onError: (m) => errors.push(m),
    });
    await checkpoints.stop();
    assert.equal(errors.length, 1);
  });
});
