import { sql } from "kysely";
import type { SqlDialect } from "../sql/dialect.js";

/** SQLite's part of the SQL: instr, SQLITE_CONSTRAINT_UNIQUE, integer autoincrement keys. */
export const sqliteDialect: SqlDialect = {
  isUniqueViolation: (error) => (error as { code?: unknown }).code === "SQLITE_CONSTRAINT_UNIQUE",
  // instr, not LIKE: a literal match ('%' and '_' would be wildcards); lower() folds ASCII only,
  // as SQLite's LIKE does.
  contains: (column, text, ignoreCase = false) =>
    ignoreCase
      ? sql<boolean>`instr(lower(${sql.ref(column)}), lower(${text})) > 0`
      : sql<boolean>`instr(${sql.ref(column)}, ${text}) > 0`,
  seqType: "integer",
  seq: (c) => c.primaryKey().autoIncrement(),
  bigIntType: "integer",
};
