import { sqlStorage } from "../sql/index.js";
import type { StorageBackend } from "../types.js";
import { postgresCheckpointer } from "./checkpoint-admin.js";
import { openPostgresDatabase, type PostgresOptions } from "./database.js";
import { postgresDialect } from "./dialect.js";
import { postgresRunShortcuts } from "./run-shortcuts.js";

export type { PostgresOptions } from "./database.js";

/**
 * Opens the scaled-out backend: the agent server's tables and the official checkpointer's in one
 * PostgreSQL database (in `options.schema` when given), migrated on open; one pool for both.
 * Many API and worker processes share it (`shared: true`).
 */
export async function openPostgresBackend(
  url: string,
  options: PostgresOptions = {},
): Promise<StorageBackend> {
  let checkpoints: ReturnType<typeof postgresCheckpointer> | undefined;
  const { db } = await openPostgresDatabase(url, options, async (pool, schema) => {
    checkpoints = postgresCheckpointer(pool, schema);
    await checkpoints.saver.setup();
  });
  if (!checkpoints) throw new Error("the checkpointer was not set up");
  // Kysely's destroy ends the pool the checkpointer shares.
  const storage = sqlStorage(db, postgresDialect, () => db.destroy(), {
    runs: { shortcuts: postgresRunShortcuts },
  });
  return { storage, checkpointer: checkpoints.saver, checkpoints: checkpoints.admin, shared: true };
}
