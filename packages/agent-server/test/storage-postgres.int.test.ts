// The storage conformance suite on the PostgreSQL adapter (needs DATABASE_URL, as CI sets; skips
// without), each database a fresh schema, plus the cases only a shared database has.
import { after, test } from "node:test";
import { openPostgresBackend } from "../src/storage/postgres/index.js";
import { dropSchemas, freshSchemaName, TEST_DATABASE_URL } from "./postgres.js";
import { claimCases, claimConflictCases, sharedClaimCases } from "./storage-conformance-claims.js";
import { createReadsCases } from "./storage-conformance-create-reads.js";
import { itemAndCronCases } from "./storage-conformance-items.js";
import { recoveryCases } from "./storage-conformance-recovery.js";
import { runStoreCases, sharedRunStoreCases } from "./storage-conformance-runs.js";
import { threadAndAssistantCases } from "./storage-conformance-threads.js";
import type { StorageTarget } from "./storage-target.js";

const url = TEST_DATABASE_URL;
if (url === undefined) {
  console.log("# DATABASE_URL is not set: the PostgreSQL storage tests are skipped.");
  test("storage conformance: postgres", { skip: "DATABASE_URL is not set" }, () => {});
} else {
  const schemas: string[] = [];
  after(() => dropSchemas(url, schemas));
  const postgres: StorageTarget = {
    name: "postgres",
    async fresh() {
      const name = freshSchemaName();
      schemas.push(name);
      return name;
    },
    open: (schema) => openPostgresBackend(url, { schema, poolSize: 5 }),
  };
  runStoreCases(postgres);
  recoveryCases(postgres);
  claimCases(postgres);
  createReadsCases(postgres);
  sharedRunStoreCases(postgres);
  sharedClaimCases(postgres);
  claimConflictCases(postgres, url);
  itemAndCronCases(postgres);
  threadAndAssistantCases(postgres);
}
