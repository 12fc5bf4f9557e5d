/**
 * Opening the store from a database URL. The scheme chooses the adapter:
 *
 * - `sqlite:./data/idp.db`, `sqlite:/var/lib/idp/idp.db` (also `sqlite://...`): a SQLite file,
 *   created with its directory if missing.
 * - `sqlite::memory:`: a private in-memory SQLite database (tests, demos).
 * - `postgres://user:pass@host:5432/db` or `postgresql://...`: PostgreSQL, through Bun.SQL on Bun
 *   and postgres.js on Deno (postgres/driver.ts).
 *
 * Pending migrations are applied at open. With `{ migrate: false }` the store only opens on an
 * up-to-date schema (else a StoreError says to run `idp migrate`, which calls `migrate()` below).
 */
import { migrate_postgres_database, open_postgres_store } from "./postgres/index.ts";
import { migrate_sqlite_file, open_sqlite_store } from "./sqlite/index.ts";
import { StoreError, type MigrationResult, type OpenStoreOptions, type Store } from "./types.ts";

export type DatabaseTarget = { kind: "sqlite"; path: string } | { kind: "postgres"; url: string };

/** Reads a database URL; raises StoreError naming the accepted forms when it is not one. */
export function parse_database_url(database_url: string): DatabaseTarget {
  if (database_url.startsWith("sqlite:")) {
    let path = database_url.slice("sqlite:".length);
    if (path.startsWith("//")) path = path.slice(2);
    if (path === "") throw new StoreError("database URL sqlite: needs a path, e.g. sqlite:./data/idp.db or sqlite::memory:");
    return { kind: "sqlite", path };
  }
  if (/^postgres(ql)?:\/\//.test(database_url)) return { kind: "postgres", url: database_url };
  throw new StoreError("database URL must start with sqlite: (sqlite:./data/idp.db, sqlite::memory:) or postgres:// / postgresql://");
}

export async function open_store(database_url: string, options: OpenStoreOptions = {}): Promise<Store> {
  const target = parse_database_url(database_url);
  return target.kind === "sqlite" ? open_sqlite_store(target.path, options) : open_postgres_store(target.url, options);
}

/** For `idp migrate`: applies pending migrations and closes the connection. */
export async function migrate(database_url: string, options: Omit<OpenStoreOptions, "migrate"> = {}): Promise<MigrationResult> {
  const target = parse_database_url(database_url);
  return target.kind === "sqlite" ? migrate_sqlite_file(target.path, options) : migrate_postgres_database(target.url, options);
}
