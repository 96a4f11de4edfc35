import type { ColumnDataType, ColumnDefinitionBuilder, RawBuilder } from "kysely";

/**
 * The little SQL the shared stores and migrations cannot write once for SQLite and PostgreSQL;
 * each adapter passes its own (sqlite/dialect.ts, postgres/dialect.ts).
 */
export interface SqlDialect {
  /** Whether `error` is the database's unique-constraint violation (a taken name → 409). */
  isUniqueViolation(error: unknown): boolean;
  /**
   * `column` holds `text` as a literal substring (never a LIKE pattern: '%' and '_' match
   * themselves); `ignoreCase` folds ASCII case at least.
   */
  contains(column: string, text: string, ignoreCase?: boolean): RawBuilder<boolean>;
  /** Type of the auto-numbered `seq` primary key that orders every listed table. */
  readonly seqType: ColumnDataType;
  /** Constraints of that `seq` column. */
  readonly seq: (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
  /** Type of integers that outgrow 32 bits: epoch milliseconds, byte counts. */
  readonly bigIntType: ColumnDataType;
}
