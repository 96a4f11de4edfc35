/** The SQL dialect port, shared with the tracing package (see @berth-platform/server-kit). */
export type { SqlDialect } from "@berth-platform/server-kit";
