import type { ColumnDataType, ColumnDefinitionBuilder, RawBuilder } from "kysely";

/**
 * The little SQL the shared stores and migrations cannot write once for SQLite and PostgreSQL;
 * each adapter passes its own (sqlite/dialect.ts, postgres/dialect.ts).
 */
export interface SqlDialect {
  /** Adapter name, for logs and test names. */
  readonly name: "sqlite" | "postgres";
  /** Whether `error` is the database's unique-constraint violation. */
  isUniqueViolation(error: unknown): boolean;
  /** `column` holds `text` as a literal substring, ASCII case folded (never a LIKE pattern). */
  containsIgnoreCase(column: string, text: string): RawBuilder<boolean>;
  /** Type of the auto-numbered `seq` primary key that orders runs. */
  readonly seqType: ColumnDataType;
  /** Constraints of that `seq` column. */
  readonly seq: (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
  /** Type of integers that outgrow 32 bits: epoch milliseconds. */
  readonly bigIntType: ColumnDataType;
  /** Type of fractional numbers (store items' TTL in minutes). */
  readonly floatType: ColumnDataType;
  /**
   * Whether other processes write the same database at once: transactions then take row locks
   * (`FOR UPDATE`, claims with `SKIP LOCKED`). SQLite has one writer and Kysely serialises its
   * transactions, so there the locks are neither needed nor valid syntax.
   */
  readonly rowLocks: boolean;
}

/** `query … FOR UPDATE` where the dialect takes row locks; unchanged on SQLite. */
export function forUpdate<Q extends { forUpdate(): Q }>(query: Q, dialect: SqlDialect): Q {
  return dialect.rowLocks ? query.forUpdate() : query;
}
