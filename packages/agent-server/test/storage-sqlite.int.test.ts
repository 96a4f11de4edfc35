// The storage conformance suite on the embedded SQLite adapter (one data directory per database).
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, describe, it } from "node:test";
import { makeTempDir } from "@berth-platform/testkit";
import { openSqliteBackend } from "../src/storage/sqlite/index.js";
import { claimCases } from "./storage-conformance-claims.js";
import { createReadsCases } from "./storage-conformance-create-reads.js";
import { itemAndCronCases } from "./storage-conformance-items.js";
import { recoveryCases } from "./storage-conformance-recovery.js";
import { runStoreCases } from "./storage-conformance-runs.js";
import { threadAndAssistantCases } from "./storage-conformance-threads.js";
import type { StorageTarget } from "./storage-target.js";

const temp = makeTempDir();
after(() => temp.cleanup());
let n = 0;
const sqlite: StorageTarget = {
  name: "sqlite",
  async fresh() {
    n += 1;
    return `${temp.dir}/db-${n}`;
  },
  open: (dir) => openSqliteBackend(dir),
};

runStoreCases(sqlite);
recoveryCases(sqlite);
claimCases(sqlite);
createReadsCases(sqlite);
itemAndCronCases(sqlite);
threadAndAssistantCases(sqlite);

describe("sqlite adapter", () => {
  it("refuses a second process on the same data directory", async () => {
    const dir = `${temp.dir}/locked`;
    const backend = await openSqliteBackend(dir);
    after(() => backend.storage.close());
    // The lock holds this process's pid, which is alive: a second open must refuse.
    fs.writeFileSync(`${dir}/server.lock`, String(process.ppid));
    await assert.rejects(openSqliteBackend(dir), /in use by process/);
  });
});
