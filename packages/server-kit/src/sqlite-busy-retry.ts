import type Database from "better-sqlite3";
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SqliteDialect,
  type TransactionSettings,
} from "kysely";

/** How long a statement keeps retrying a locked file before it fails (SQLite's busy timeout did the same). */
const BUSY_GIVE_UP_MS = 5_000;
/** Retries on the next event-loop turn before falling back to 1 ms timers. */
const IMMEDIATE_RETRIES = 20;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const oneMs = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/**
 * A connection that, when another process holds the file's write lock, waits for it without
 * blocking the event loop. SQLite's own busy handler sleeps the thread (1, 2, 5, 10… ms, growing
 * while the lock stays taken); two children of the embedded cluster spent 37 % of their time
 * asleep in it at 64 clients (docs/decisions.md, issue 12 fourth pass). Here the connection has no
 * busy timeout: a refused `BEGIN IMMEDIATE` or autocommit statement fails at once and is retried
 * on the next event-loop turn, so the process serves HTTP and runs other graphs meanwhile. Only a
 * statement outside a transaction is retried: it did nothing when refused. Inside a transaction
 * (after `BEGIN IMMEDIATE`) this connection holds the write lock and is never refused.
 */
class BusyRetryConnection implements DatabaseConnection {
  constructor(
    private readonly inner: DatabaseConnection,
    private readonly database: Database.Database,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const started = Date.now();
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.inner.executeQuery<R>(query);
      } catch (error) {
        if (!isBusy(error) || this.database.inTransaction || Date.now() - started > BUSY_GIVE_UP_MS)
          throw error;
      }
      await (attempt < IMMEDIATE_RETRIES ? nextTurn() : oneMs());
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/**
 * Kysely's SQLite driver, with its one connection wrapped in BusyRetryConnection when `retryBusy`,
 * and a rollback that is skipped when SQLite already rolled the transaction back itself: on
 * SQLITE_FULL (or an I/O error) it does, and Kysely's ROLLBACK then failed with "cannot rollback -
 * no transaction is active", hiding the error that says why (a full disk answered 500, not 507).
 */
class GuardedSqliteDriver implements Driver {
  private wrapped: { inner: DatabaseConnection; outer: BusyRetryConnection } | undefined;

  constructor(
    private readonly inner: Driver,
    private readonly database: Database.Database,
    private readonly retryBusy: boolean,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    if (!this.retryBusy) return connection;
    if (this.wrapped?.inner !== connection)
      this.wrapped = { inner: connection, outer: new BusyRetryConnection(connection, this.database) };
    return this.wrapped.outer;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.database.inTransaction) return;
    await this.inner.rollbackTransaction(connection);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/**
 * Kysely's SqliteDialect for a file other processes write: the connection's busy timeout is
 * set to 0 and refused statements are retried without blocking the event loop
 * (BusyRetryConnection). Use with immediateTransactions, so a transaction is refused at `BEGIN`,
 * never halfway.
 */
export class SharedFileSqliteDialect extends SqliteDialect {
  constructor(private readonly database: Database.Database) {
    database.pragma("busy_timeout = 0");
    super({ database });
  }

  override createDriver(): Driver {
    return new GuardedSqliteDriver(super.createDriver(), this.database, true);
  }
}

/**
 * Kysely's SqliteDialect for a file one process writes: the same statements, and a failed
 * transaction's own error (SQLITE_FULL, say) reaches the caller (see GuardedSqliteDriver).
 */
export class SqliteFileDialect extends SqliteDialect {
  constructor(private readonly database: Database.Database) {
    super({ database });
  }

  override createDriver(): Driver {
    return new GuardedSqliteDriver(super.createDriver(), this.database, false);
  }
}
