/**
 * The SQLite driver interface: the part of a SQLite binding the adapter uses, so its modules run
 * on bun:sqlite (bun_sqlite.ts) and on node:sqlite (node_sqlite.ts, on Deno) alike; load_driver.ts
 * picks one by runtime (docs/ARCHITECTURE.md, "Storage"). The names are bun:sqlite's, a subset
 * of its `Database` and `Statement`: bun:sqlite meets the contract as it is, so the hot path on
 * Bun calls its statements directly, and node:sqlite is adapted to it.
 *
 * What every driver guarantees, and the modules rely on:
 * - Named parameters are written `$name` in the SQL and bound from an object with bare keys
 *   (`{ name }`); a key the statement does not use is ignored. Numbered ones (`?1`) are bound
 *   from arguments. A boolean binds as 1 or 0 (and an `undefined` that slips past the types as NULL).
 * - `get` returns the first row or null, `all` every row; rows are plain objects, integers
 *   numbers, blobs Uint8Array. `run` returns the rows changed and the last rowid inserted.
 * - `query` caches its statement by the SQL text (a statement built per call, such as a purge's);
 *   `prepare` compiles a new one, kept by the caller (the modules prepare theirs once, at open).
 * - `transaction(body)` runs `body` between BEGIN and COMMIT, or in a savepoint when a transaction
 *   is open, so it nests inside group commit's batch (group_commit.ts); `.immediate` takes the
 *   write lock at BEGIN. A throw rolls it back and is thrown again.
 * - Errors carry `code`, SQLite's name of the result (`SQLITE_BUSY`, `SQLITE_CONSTRAINT_UNIQUE`,
 *   …); a statement of a closed database throws "Database has closed" (connection.ts maps both).
 */

/** A value a parameter takes. */
export type SqliteValue = string | number | bigint | boolean | null | Uint8Array;

/** What one call binds: an object of named values, or one numbered value per argument. */
export type SqliteBinding = SqliteValue | Readonly<Record<string, SqliteValue>>;

/** What `run` reports. */
export type SqliteChanges = { changes: number; lastInsertRowid: number | bigint };

export interface SqliteStatement {
  get(...params: SqliteBinding[]): unknown;
  all(...params: SqliteBinding[]): unknown[];
  run(...params: SqliteBinding[]): SqliteChanges;
}

/** `body` in a transaction: called as is (BEGIN, a plain deferred one), or `.immediate`. */
export type SqliteTransaction<A extends unknown[], R> = {
  (...args: A): R;
  immediate(...args: A): R;
};

export interface SqliteDatabase {
  /** A new compiled statement. */
  prepare(sql: string): SqliteStatement;
  /** The statement of this text, compiled once and cached. */
  query(sql: string): SqliteStatement;
  /** Runs one or more statements without parameters (pragmas, migrations). */
  exec(sql: string): void;
  transaction<A extends unknown[], R>(body: (...args: A) => R): SqliteTransaction<A, R>;
  /** Whether a transaction is open; false after SQLite rolled one back on its own (FULL, IOERR). */
  readonly inTransaction: boolean;
  /** Closes the connection; `true` finalizes every statement too, so later calls throw. Closing twice does nothing. */
  close(finalize_statements?: boolean): void;
}

export type SqliteOpenOptions = { readonly?: boolean };

export interface SqliteDriver {
  /** bun:sqlite or node:sqlite, for messages. */
  readonly name: string;
  /** Opens the database file, creating it unless `readonly`; `:memory:` gives a private in-memory one. */
  open(path: string, options?: SqliteOpenOptions): SqliteDatabase;
  /**
   * Copies `db`, which this driver opened, into `out`, an empty file: one read transaction, so a
   * consistent copy while other connections write, and a single file (no WAL) when it is done.
   */
  snapshot(db: SqliteDatabase, out: string): Promise<void>;
}
