/**
 * The database side of backups and restores, by the kind of DATABASE_URL: a consistent copy of
 * the whole database into a file (SQLite: the driver's snapshot, sqlite/backup.ts; PostgreSQL: `pg_dump
 * --format=custom`, postgres/backup.ts), the check of such a copy, whether a database is empty,
 * and putting a copy in place, migrated forward. The file a backup is kept in (manifest,
 * checksum, encryption) is app/backup/'s.
 */
import { existsSync } from "node:fs";
import { migrate_postgres_database } from "./postgres/index.ts";
import { pg_install, pg_payload_check, pg_snapshot, pg_tables, type ToolEnv } from "./postgres/backup.ts";
import { load_postgres_driver } from "./postgres/load_driver.ts";
import { parse_database_url } from "./open.ts";
import { sqlite_install, sqlite_payload_check, sqlite_snapshot, sqlite_table_count, take_alone } from "./sqlite/backup.ts";
import { load_sqlite_driver } from "./sqlite/load_driver.ts";
import type { MigrationResult } from "./types.ts";

export type { ToolEnv } from "./postgres/backup.ts";

/** The database a copy comes from, and the form of the copy. */
export type DatabaseKind = "sqlite" | "postgres";
export const COPY_FORMAT = { sqlite: "sqlite3", postgres: "pg_dump-custom" } as const satisfies Record<DatabaseKind, string>;

export type Snapshot = { database: DatabaseKind; format: (typeof COPY_FORMAT)[DatabaseKind]; schema: number };

export type CopyOptions = {
  /** SQLite: how long to wait for a lock (a writer folding the WAL); the CLI waits longer than the server. */
  busy_timeout?: number;
  /** PostgreSQL: the environment pg_dump and pg_restore run with (PATH to find them). */
  env?: ToolEnv;
};

/** The kind of database `database_url` names. */
export function database_kind(database_url: string): DatabaseKind {
  return parse_database_url(database_url).kind;
}

/** Copies the whole database into the new file `out`, consistently while others write. */
export async function snapshot_database(database_url: string, out: string, options: CopyOptions = {}): Promise<Snapshot> {
  const target = parse_database_url(database_url);
  if (target.kind === "sqlite") {
    const schema = await sqlite_snapshot(target.path, out, await load_sqlite_driver(), options.busy_timeout ?? 5000);
    return { database: "sqlite", format: COPY_FORMAT.sqlite, schema };
  }
  const schema = await pg_snapshot(target.url, out, await load_postgres_driver(), options.env ?? {});
  return { database: "postgres", format: COPY_FORMAT.postgres, schema };
}

/**
 * Checks a copy as far as it can be without loading it: SQLite's integrity check and the copy's
 * own schema version; a PostgreSQL dump's table of contents (`schema` null: a dump is not read
 * here; `checked` false when pg_restore is not on the PATH to ask).
 */
export async function check_copy(kind: DatabaseKind, path: string, options: CopyOptions = {}): Promise<{ schema: number | null; checked: boolean }> {
  if (kind === "sqlite") return { schema: sqlite_payload_check(path, await load_sqlite_driver()).schema, checked: true };
  return { schema: null, checked: await pg_payload_check(path, options.env ?? {}) };
}

/** How many tables the database holds: 0 for an empty one (or a SQLite file not there yet). */
export async function table_count(database_url: string, options: CopyOptions = {}): Promise<number> {
  const target = parse_database_url(database_url);
  if (target.kind === "sqlite") return sqlite_table_count(target.path, await load_sqlite_driver(), options.busy_timeout ?? 5000);
  return (await pg_tables(target.url, await load_postgres_driver())).length;
}

/**
 * Raises StoreError when the database cannot be replaced now: a SQLite file another process has
 * open (a running server). PostgreSQL has no such check: its servers must be stopped by the operator.
 */
export async function check_replaceable(database_url: string): Promise<void> {
  const target = parse_database_url(database_url);
  if (target.kind === "sqlite" && existsSync(target.path)) take_alone(target.path, await load_sqlite_driver());
}

/**
 * Puts the copy at `payload` in place of the database's contents and migrates it forward.
 * SQLite: refused while another process has the file open; `payload` is consumed. PostgreSQL:
 * with `replace`, the database's tables are dropped first.
 */
export async function install_copy(database_url: string, payload: string, replace: boolean, options: CopyOptions = {}): Promise<MigrationResult> {
  const target = parse_database_url(database_url);
  if (target.kind === "sqlite") return sqlite_install(target.path, payload, await load_sqlite_driver());
  await pg_install(target.url, payload, await load_postgres_driver(), options.env ?? {}, replace);
  return migrate_postgres_database(target.url);
}
