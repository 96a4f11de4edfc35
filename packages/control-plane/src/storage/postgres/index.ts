import type { SecretBox } from "../../secrets/box.js";
import { sqlStorage } from "../sql/index.js";
import type { ControlPlaneStorage } from "../types.js";
import { openPostgresDatabase, type PostgresOptions } from "./database.js";
import { postgresDialect } from "./dialect.js";

export type { PostgresOptions } from "./database.js";

/**
 * Opens the scaled-out backend: the control plane's tables in a PostgreSQL database (in
 * `options.schema` when given), migrated on open; `close()` ends the pool.
 */
export async function openPostgresStorage(
  url: string,
  box: SecretBox,
  options: PostgresOptions = {},
): Promise<ControlPlaneStorage> {
  const db = await openPostgresDatabase(url, options);
  return sqlStorage(db, postgresDialect, box, () => db.destroy());
}
