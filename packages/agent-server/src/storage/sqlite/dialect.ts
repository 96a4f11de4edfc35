import { sql } from "kysely";
import type { SqlDialect } from "../sql/dialect.js";

/** SQLite's part of the SQL: instr, SQLITE_CONSTRAINT_*, integer autoincrement keys, no row locks. */
export const sqliteDialect: SqlDialect = {
  name: "sqlite",
  isUniqueViolation: (error) =>
    ["SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY"].includes(
      String((error as { code?: unknown }).code),
    ),
  // instr, not LIKE: a literal match ('%' and '_' would be wildcards); lower() folds ASCII only.
  containsIgnoreCase: (column, text) => sql<boolean>`instr(lower(${sql.ref(column)}), lower(${text})) > 0`,
  seqType: "integer",
  seq: (c) => c.primaryKey().autoIncrement(),
  bigIntType: "integer",
  floatType: "real",
  rowLocks: false,
};
