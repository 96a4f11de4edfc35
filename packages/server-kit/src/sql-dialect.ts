import { type ColumnDataType, type ColumnDefinitionBuilder, type RawBuilder, sql } from "kysely";

/**
 * The little SQL the shared stores and migrations cannot write once for SQLite and PostgreSQL;
 * each adapter passes its own (sqliteDialect, postgresDialect below). Shared by the control plane
 * and the tracing package, whose tables live in the same database.
 */
export interface SqlDialect {
  /** Whether `error` is the database's unique-constraint violation (a taken name → 409). */
  isUniqueViolation(error: unknown): boolean;
  /**
   * `column` holds `text` as a literal substring (never a LIKE pattern: '%' and '_' match
   * themselves); `ignoreCase` folds ASCII case at least.
   */
  contains(column: string, text: string, ignoreCase?: boolean): RawBuilder<boolean>;
  /**
   * The value at `path` (object keys) of a JSON text column, as text (null when absent). Numbers
   * come back as their decimal text on both databases; booleans differ (SQLite: 1/0, PostgreSQL:
   * true/false), so callers compare strings.
   */
  jsonText(column: string, path: readonly string[]): RawBuilder<string | null>;
  /** Type of the auto-numbered `seq` primary key that orders every listed table. */
  readonly seqType: ColumnDataType;
  /** Constraints of that `seq` column. */
  readonly seq: (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
  /** Type of integers that outgrow 32 bits: epoch milliseconds, byte counts. */
  readonly bigIntType: ColumnDataType;
}

/** SQLite's part of the SQL: instr, SQLITE_CONSTRAINT_UNIQUE, integer autoincrement keys. */
export const sqliteDialect: SqlDialect = {
  isUniqueViolation: (error) => (error as { code?: unknown }).code === "SQLITE_CONSTRAINT_UNIQUE",
  // instr, not LIKE: a literal match ('%' and '_' would be wildcards); lower() folds ASCII only,
  // as SQLite's LIKE does.
  contains: (column, text, ignoreCase = false) =>
    ignoreCase
      ? sql<boolean>`instr(lower(${sql.ref(column)}), lower(${text})) > 0`
      : sql<boolean>`instr(${sql.ref(column)}, ${text}) > 0`,
  // A quoted path member matches any key, dots and spaces included (callers refuse `"` in keys).
  jsonText: (column, path) =>
    sql<
      string | null
    >`cast(json_extract(${sql.ref(column)}, ${`$${path.map((k) => `."${k}"`).join("")}`}) as text)`,
  seqType: "integer",
  seq: (c) => c.primaryKey().autoIncrement(),
  bigIntType: "integer",
};

/** PostgreSQL's part of the SQL: strpos, SQLSTATE 23505, bigint identity keys. */
export const postgresDialect: SqlDialect = {
  isUniqueViolation: (error) => (error as { code?: unknown }).code === "23505",
  // strpos, not LIKE: a literal match ('%', '_' and '\' would be pattern characters).
  contains: (column, text, ignoreCase = false) =>
    ignoreCase
      ? sql<boolean>`strpos(lower(${sql.ref(column)}), lower(${text}::text)) > 0`
      : sql<boolean>`strpos(${sql.ref(column)}, ${text}::text) > 0`,
  // Text that is not JSON would fail the cast: only the stores write these columns, always JSON.
  jsonText: (column, path) => sql<string | null>`(${sql.ref(column)}::jsonb #>> ${[...path]}::text[])`,
  seqType: "bigint",
  seq: (c) => c.primaryKey().generatedByDefaultAsIdentity(),
  bigIntType: "bigint",
};
