import type { SqlDialect } from "@berth-platform/server-kit";
import { type RawBuilder, sql } from "kysely";
import type { Comparison, RunFilter } from "../../domain/run-filter.js";

const OPERATORS: Record<Comparison, string> = { eq: "=", neq: "<>", gt: ">", gte: ">=", lt: "<", lte: "<=" };

/** Far inside both databases' 64-bit integers and exact in a double. */
const LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * `value <op> number` on an integer column (times in ms, tokens): the number becomes the integer
 * that keeps the comparison's meaning (x > 10.5 is x > 10), clamped to safe integers, because
 * PostgreSQL types the parameter as the column's bigint and refuses "10.5" or "1e+300".
 */
function integerComparison(value: RawBuilder<unknown>, op: Comparison, n: number): RawBuilder<boolean> {
  const clamped = Math.max(-LIMIT, Math.min(LIMIT, n));
  if (!Number.isInteger(clamped)) {
    if (op === "eq") return sql<boolean>`1 = 0`;
    if (op === "neq") return sql<boolean>`${value} is not null`;
  }
  const bound = op === "gt" || op === "lte" ? Math.floor(clamped) : Math.ceil(clamped);
  return sql<boolean>`${value} ${sql.raw(OPERATORS[op])} ${bound}`;
}

/**
 * A run filter as a SQL condition on the `tracing_runs` row named `table` (the main query's table,
 * or a subquery's alias). Values are parameters; columns and operators come from fixed tables.
 */
export function filterCondition(filter: RunFilter, table: string, dialect: SqlDialect): RawBuilder<boolean> {
  const col = (name: string) => sql.ref(`${table}.${name}`);
  const column = (name: string) => `${table}.${name}`;
  switch (filter.kind) {
    case "and":
    case "or": {
      const items = filter.items.map((item) => filterCondition(item, table, dialect));
      return sql<boolean>`(${sql.join(items, filter.kind === "and" ? sql` and ` : sql` or `)})`;
    }
    case "not":
      // A comparison with NULL is unknown, and NOT unknown is unknown: coalesce so that not()
      // matches every run its argument does not.
      return sql<boolean>`not coalesce(${filterCondition(filter.item, table, dialect)}, false)`;
    case "text":
      return filter.op === "eq"
        ? sql<boolean>`${col(filter.field)} = ${filter.value}`
        : sql<boolean>`(${col(filter.field)} is null or ${col(filter.field)} <> ${filter.value})`;
    case "in":
      if (filter.values.length === 0) return sql<boolean>`1 = 0`;
      return sql<boolean>`${col(filter.field)} in (${sql.join(filter.values)})`;
    case "number":
      return integerComparison(sql`${col(filter.field)}`, filter.op, filter.value);
    case "latency":
      return integerComparison(sql`(${col("end_ms")} - ${col("start_ms")})`, filter.op, filter.ms);
    case "status": {
      const condition =
        filter.status === "error"
          ? sql<boolean>`${col("error")} is not null`
          : filter.status === "success"
            ? sql<boolean>`(${col("error")} is null and ${col("end_ms")} is not null)`
            : sql<boolean>`(${col("error")} is null and ${col("end_ms")} is null)`;
      return filter.negate ? sql<boolean>`not ${condition}` : condition;
    }
    case "is_root":
      return filter.value
        ? sql<boolean>`${col("trace_id")} = ${col("id")}`
        : sql<boolean>`(${col("trace_id")} is null or ${col("trace_id")} <> ${col("id")})`;
    case "has_tag":
      // Tags are stored as the JSON array sent: an element is its JSON string, quotes included.
      return sql<boolean>`coalesce(${dialect.contains(column("tags"), JSON.stringify(filter.tag))}, false)`;
    case "metadata": {
      const value = dialect.jsonText(column("extra"), ["metadata", filter.key]);
      return filter.value === undefined
        ? sql<boolean>`${value} is not null`
        : sql<boolean>`coalesce(${value} = ${filter.value}, false)`;
    }
    case "search": {
      const fields = ["name", "inputs", "outputs", "error"].map(
        (name) => sql<boolean>`coalesce(${dialect.contains(column(name), filter.text, true)}, false)`,
      );
      return sql<boolean>`(${sql.join(fields, sql` or `)})`;
    }
  }
}
