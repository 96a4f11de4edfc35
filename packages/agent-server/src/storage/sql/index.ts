import type { Kysely } from "kysely";
import type { Storage } from "../types.js";
import { SqlAssistantStore } from "./assistants.js";
import { SqlCronStore } from "./crons.js";
import type { SqlDialect } from "./dialect.js";
import { SqlRunStore, type SqlRunStoreOptions } from "./runs.js";
import type { AgentServerDb } from "./schema.js";
import { SqlItemStore } from "./store.js";
import { SqlThreadStore } from "./threads.js";

/**
 * The storage port over a migrated Kysely database of either dialect; `close` is the adapter's
 * own (destroy the database, release what it holds).
 */
export function sqlStorage(
  db: Kysely<AgentServerDb>,
  dialect: SqlDialect,
  close: () => Promise<void>,
  options: { runs?: SqlRunStoreOptions } = {},
): Storage {
  return {
    threads: new SqlThreadStore(db, dialect),
    runs: new SqlRunStore(db, dialect, options.runs),
    assistants: new SqlAssistantStore(db, dialect),
    items: new SqlItemStore(db),
    crons: new SqlCronStore(db, dialect),
    close,
  };
}
