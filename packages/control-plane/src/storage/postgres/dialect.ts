import { sql } from "kysely";
import type { SqlDialect } from "../sql/dialect.js";

/** PostgreSQL's part of the SQL: strpos, SQLSTATE 23505, bigint identity keys. */
export const postgresDialect: SqlDialect = {
  isUniqueViolation: (error) => (error as { code?: unknown }).code === "23505",
  // strpos, not LIKE: a literal match ('%', '_' and '\' would be pattern characters).
  contains: (column, text, ignoreCase = false) =>
    ignoreCase
      ? sql<boolean>`strpos(lower(${sql.ref(column)}), lower(${text}::text)) > 0`
      : sql<boolean>`strpos(${sql.ref(column)}, ${text}::text) > 0`,
  seqType: "bigint",
  seq: (c) => c.primaryKey().generatedByDefaultAsIdentity(),
  bigIntType: "bigint",
};
