// The storage contract on the SQLite adapter.
import { randomBytes } from "node:crypto";
import { makeTempDir } from "@berth-platform/testkit";
import { SecretBox } from "../src/secrets/box.js";
import { openSqliteStorage } from "../src/storage/sqlite/index.js";
import { storageConformance } from "./storage-conformance.js";

storageConformance("sqlite", async () => {
  const temp = makeTempDir("berth-cp-storage-");
  const storage = await openSqliteStorage(temp.dir, new SecretBox(randomBytes(32)));
  return {
    storage,
    async close() {
      await storage.close();
      temp.cleanup();
    },
  };
});
