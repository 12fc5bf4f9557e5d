/**
 * Opening the store from a database URL. The scheme chooses the adapter:
 *
 * - `sqlite:./data/idp.db`, `sqlite:/var/lib/idp/idp.db` (also `sqlite://...`): a SQLite file,
 *   created with its directory if missing.
 * - `sqlite::memory:`: a private in-memory SQLite database (tests, demos).
 * - `postgres://user:pass@host:5432/db` or `postgresql://...`: PostgreSQL through Bun.SQL.
 *
 * Pending migrations are applied at open. With `{ migrate: false }` the store only opens on an
 * up-to-date schema (else a StoreError says to run `idp migrate`, which calls `migrate()` below).
 */
import { migratePostgresDatabase, openPostgresStore } from "./postgres/index.ts";
import { migrateSqliteFile, openSqliteStore } from "./sqlite/index.ts";
import { StoreError, type MigrationResult, type OpenStoreOptions, type Store } from "./types.ts";

export type DatabaseTarget = { kind: "sqlite"; path: string } | { kind: "postgres"; url: string };

/** Reads a database URL; raises StoreError naming the accepted forms when it is not one. */
export function parseDatabaseUrl(databaseUrl: string): DatabaseTarget {
  if (databaseUrl.startsWith("sqlite:")) {
    let path = databaseUrl.slice("sqlite:".length);
    if (path.startsWith("//")) path = path.slice(2);
    if (path === "") throw new StoreError("database URL sqlite: needs a path, e.g. sqlite:./data/idp.db or sqlite::memory:");
    return { kind: "sqlite", path };
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return { kind: "postgres", url: databaseUrl };
  throw new StoreError(
    "database URL must start with sqlite: (sqlite:./data/idp.db, sqlite::memory:) or postgres:// / postgresql://",
  );
}

export async function openStore(databaseUrl: string, options: OpenStoreOptions = {}): Promise<Store> {
  const target = parseDatabaseUrl(databaseUrl);
  return target.kind === "sqlite" ? openSqliteStore(target.path, options) : openPostgresStore(target.url, options);
}

/** For `idp migrate`: applies pending migrations and closes the connection. */
export async function migrate(databaseUrl: string, options: Omit<OpenStoreOptions, "migrate"> = {}): Promise<MigrationResult> {
  const target = parseDatabaseUrl(databaseUrl);
  return target.kind === "sqlite" ? migrateSqliteFile(target.path, options) : migratePostgresDatabase(target.url, options);
}
