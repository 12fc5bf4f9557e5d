/**
 * What one schema migration is. Its own file so each migration script and the ordered list
 * (index.ts) can both name it without importing each other.
 */
export type Migration = {
  version: number;
  name: string;
  /** The script for SQLite (src/store/sqlite). */
  sqlite: string;
  /** The script for PostgreSQL (src/store/postgres). */
  postgres: string;
  /** A change of data that SQL cannot express on both databases, run after the script. */
  rows?: RowRewrite;
};

/**
 * The adapter runs `select`, hands its rows to `rewrite`, then runs its update once with each
 * parameter list returned, in order, in the migration's transaction. `rewrite` throws (a
 * StoreError saying what to do) to fail the migration, which then changes nothing.
 */
export type RowRewrite = {
  /** One text for both databases. */
  select: string;
  rewrite(rows: Record<string, unknown>[]): unknown[][];
  /** Positional parameters ?1, ?2… */
  update_sqlite: string;
  /** Positional parameters $1, $2… */
  update_postgres: string;
};
