import { sql } from "kysely";
import type { SqlDialect } from "../sql/dialect.js";

/** PostgreSQL's part of the SQL: strpos, SQLSTATE 23505, bigint identity keys, row locks. */
export const postgresDialect: SqlDialect = {
  name: "postgres",
  isUniqueViolation: (error) => (error as { code?: unknown }).code === "23505",
  // strpos, not LIKE: a literal match ('%', '_' and '\' would be pattern characters).
  containsIgnoreCase: (column, text) =>
    sql<boolean>`strpos(lower(${sql.ref(column)}), lower(${text}::text)) > 0`,
  seqType: "bigint",
  seq: (c) => c.primaryKey().generatedByDefaultAsIdentity(),
  bigIntType: "bigint",
  floatType: "double precision",
  rowLocks: true,
};
