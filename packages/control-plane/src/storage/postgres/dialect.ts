/** See @berth-platform/server-kit sql-dialect.ts (shared with the tracing package). */
export { postgresDialect } from "@berth-platform/server-kit";
