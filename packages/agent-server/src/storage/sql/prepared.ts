import {
  type Compilable,
  type CompiledQuery,
  createQueryId,
  type Kysely,
  type QueryResult,
  type Transaction,
} from "kysely";
import type { AgentServerDb } from "./schema.js";

/** The store's database or a transaction on it. */
export type Db = Kysely<AgentServerDb> | Transaction<AgentServerDb>;

/** Stands for the i-th argument while a statement is compiled. */
class Slot {
  constructor(readonly index: number) {}
}

/**
 * A hot statement built and compiled by Kysely once, then executed with fresh arguments: building
 * the query tree and compiling it on every call cost ~0.4 ms of CPU per run (about 8 % of the
 * server's CPU under load), more than SQLite took to execute most of these statements.
 *
 * `build` receives placeholders instead of the arguments, so it must only place them as values
 * (no branching on them, no lists whose length varies). Plugins see the query when it is compiled;
 * an argument holding a NUL character takes the uncached path, so the NUL guard refuses it as
 * before.
 */
export class PreparedStatement<Args extends unknown[], Row> {
  private compiled: { query: CompiledQuery["query"]; sql: string; slots: unknown[] } | undefined;

  constructor(private readonly build: (db: Db, ...args: Args) => Compilable<Row>) {}

  /** Executes on `db` (the store's database or a transaction on it). */
  async execute(db: Db, ...args: Args): Promise<QueryResult<Row>> {
    if (args.some((a) => typeof a === "string" && a.includes("\u0000"))) {
      return db.executeQuery(this.build(db, ...args));
    }
    if (!this.compiled) this.compiled = this.compile(db, args.length);
    const compiled = this.compiled;
    const parameters = compiled.slots.map((s) => (s instanceof Slot ? args[s.index] : s));
    return db.executeQuery<Row>({
      query: compiled.query,
      sql: compiled.sql,
      parameters,
      queryId: createQueryId(),
    });
  }

  /** The first row, if any. */
  async first(db: Db, ...args: Args): Promise<Row | undefined> {
    return (await this.execute(db, ...args)).rows[0];
  }

  /** Rows changed by an insert, update or delete. */
  async changes(db: Db, ...args: Args): Promise<number> {
    return Number((await this.execute(db, ...args)).numAffectedRows ?? 0);
  }

  private compile(db: Db, arity: number) {
    const slots = Array.from({ length: arity }, (_, i) => new Slot(i));
    const { query, sql, parameters } = this.build(db, ...(slots as Args)).compile();
    // Every argument must land in the statement exactly where the placeholder did.
    const placed = new Set(parameters.filter((p) => p instanceof Slot));
    if (placed.size !== arity)
      throw new Error(`prepared statement placed ${placed.size} of ${arity} arguments`);
    return { query, sql, slots: [...parameters] };
  }
}
