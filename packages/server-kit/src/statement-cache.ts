import type Database from "better-sqlite3";

/**
 * Makes `db.prepare` reuse compiled statements (bounded LRU). Kysely's SQLite driver and the
 * official SqliteSaver both prepare on every call; measured here, preparing was ~5 % of the
 * server's CPU per run. A statement that is busy (being iterated) is never handed out twice.
 */
export function cacheStatements(db: Database.Database, max = 256): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  const cached = (sql: string): Database.Statement => {
    const hit = cache.get(sql);
    if (hit && !hit.busy) {
      cache.delete(sql);
      cache.set(sql, hit);
      return hit;
    }
    const statement = prepare(sql);
    if (!hit) {
      cache.set(sql, statement);
      if (cache.size > max) {
        const oldest = cache.keys().next().value;
        if (oldest !== undefined) cache.delete(oldest);
      }
    }
    return statement;
  };
  db.prepare = cached as typeof db.prepare;
}
