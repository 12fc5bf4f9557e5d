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
};
