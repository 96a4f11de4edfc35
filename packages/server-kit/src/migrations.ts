import {
  type DatabaseIntrospector,
  type Kysely,
  type MigrationProvider,
  Migrator,
  sql,
  type TableMetadata,
} from "kysely";

/**
 * Applies in-code migrations (unordered: features add theirs independently); on failure closes the
 * database and throws with the failing migration's name. On PostgreSQL pass the schema the tables
 * live in: Kysely otherwise takes a migration table of any schema for its own, and looks for it
 * among the tables of every schema (see `scopedToSchema`).
 */
export async function migrateToLatest<T>(
  db: Kysely<T>,
  provider: MigrationProvider,
  options: { migrationTableSchema?: string } = {},
): Promise<void> {
  const { migrationTableSchema } = options;
  const { error, results } = await new Migrator({
    db: migrationTableSchema === undefined ? db : scopedToSchema(db, migrationTableSchema),
    provider,
    allowUnorderedMigrations: true,
    ...options,
  }).migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    await db.destroy();
    throw new Error(
      `Database migration failed${failed ? ` at ${failed.migrationName}` : ""}: ${String(error)}`,
    );
  }
}

/**
 * `db` whose introspection lists the tables of PostgreSQL `schema` only. Kysely's migrator asks
 * whether its tables exist by listing every column of every schema, with functions that look
 * each schema and table up by name: on a shared database that is slow, waits on the locks of
 * other schemas' DDL and fails ("schema … does not exist") when another schema is dropped
 * meanwhile, as other deployments' and tests' schemas are.
 */
function scopedToSchema<T>(db: Kysely<T>, schema: string): Kysely<T> {
  const tables = async (): Promise<TableMetadata[]> => {
    const { rows } = await sql<{ name: string; is_view: boolean }>`
      select c.relname as name, c.relkind = 'v' as is_view
      from pg_catalog.pg_class c join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      where ns.nspname = ${schema} and c.relkind in ('r', 'v', 'p')`.execute(db);
    return rows.map((row) => ({ name: row.name, schema, isView: row.is_view, columns: [] }));
  };
  const introspection: DatabaseIntrospector = {
    getSchemas: () => db.introspection.getSchemas(),
    getTables: tables,
    getMetadata: async () => ({ tables: await tables() }),
  };
  return new Proxy(db, {
    get(target, property) {
      if (property === "introspection") return introspection;
      const value: unknown = Reflect.get(target, property, target);
      // Kysely's methods read private fields: they must run on the instance, not the proxy.
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
