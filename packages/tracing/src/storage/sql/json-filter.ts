import { postgresDialect, type SqlDialect } from "@berth-platform/server-kit";
import { type RawBuilder, sql } from "kysely";

/**
 * `column` (JSON text) contains `value` as PostgreSQL's jsonb `@>` defines it: every key of an
 * object with a contained value, every element of an array contained in some element, scalars
 * equal (types included). LangSmith's `metadata` filters on datasets and examples mean this.
 * Object keys must not hold `"` or `\` (callers refuse them: SQLite paths quote keys).
 */
export type JsonContains = (column: string, value: Record<string, unknown>) => RawBuilder<boolean>;

/**
 * The containment test in `dialect`'s SQL. server-kit's dialect port has no JSON containment yet,
 * so the PostgreSQL one is told by identity (the only one the hosts pass).
 */
export function jsonContainsOf(dialect: SqlDialect): JsonContains {
  if (dialect === postgresDialect) {
    return (column, value) => sql<boolean>`(${sql.ref(column)})::jsonb @> ${JSON.stringify(value)}::jsonb`;
  }
  return (column, value) => sqliteContains(sql.ref(column), sql`'$'`, value, 0);
}

/** SQLite: the same test from json_type/json_extract/json_each, walking the wanted value. */
function sqliteContains(
  doc: RawBuilder<unknown>,
  path: RawBuilder<unknown>,
  value: unknown,
  depth: number,
): RawBuilder<boolean> {
  const type = sql`json_type(${doc}, ${path})`;
  if (value === null) return sql<boolean>`(${type} = 'null')`;
  if (typeof value === "boolean") return sql<boolean>`(${type} = ${value ? "true" : "false"})`;
  if (typeof value === "number") {
    return sql<boolean>`(${type} in ('integer', 'real') and json_extract(${doc}, ${path}) = ${value})`;
  }
  if (typeof value === "string") {
    return sql<boolean>`(${type} = 'text' and json_extract(${doc}, ${path}) = ${value})`;
  }
  const parts: RawBuilder<boolean>[] = [];
  if (Array.isArray(value)) {
    parts.push(sql<boolean>`(${type} = 'array')`);
    const alias = sql.raw(`j${depth}`);
    for (const element of value) {
      const at = sql`${path} || '[' || ${alias}.key || ']'`;
      parts.push(
        sql<boolean>`exists (select 1 from json_each(${doc}, ${path}) as ${alias} where ${sqliteContains(doc, at, element, depth + 1)})`,
      );
    }
  } else {
    parts.push(sql<boolean>`(${type} = 'object')`);
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      parts.push(sqliteContains(doc, sql`${path} || ${`."${key}"`}`, inner, depth + 1));
    }
  }
  return sql<boolean>`(${sql.join(parts, sql` and `)})`;
}
