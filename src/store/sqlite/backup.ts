/**
 * A SQLite database copied for a backup and put back by a restore (the file around the copy:
 * app/backup/). Through the runtime's driver (driver.ts), so it runs on Bun and on Deno.
 *
 * - The copy is the driver's `snapshot` into a new file: `VACUUM INTO` on bun:sqlite (SQLite's
 *   "VACUUM INTO" documentation), the online backup API in one step on node:sqlite (Deno allows
 *   no ATTACH, which VACUUM INTO needs). Either is one read transaction, so a consistent snapshot
 *   while the server goes on writing (in WAL mode a reader does not block writers, nor they it),
 *   left without a WAL of its own. It runs on its own connection and holds this process's event
 *   loop while it lasts (bench/RESULTS.md, "Backups"): the server's scheduled backups run it in a
 *   process of their own (app/backup/schedule.ts).
 * - A restore replaces the file only when no other connection has it open: switching the
 *   journal mode away from WAL needs the database to itself, so it is the test (SQLite's "Write-
 *   Ahead Logging", §"Activating And Configuring WAL Mode"), and it also folds and removes the
 *   old file's WAL, which must not be replayed into the new file. The restored copy is migrated
 *   forward beside the target and moved over it with one rename.
 */
import { closeSync, constants, copyFileSync, existsSync, openSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { StoreError } from "../types.ts";
import { map_sqlite_error, migrate_sqlite, open_sqlite_database, sqlite_schema_version } from "./connection.ts";
import type { SqliteDatabase, SqliteDriver } from "./driver.ts";
import { SQLITE_FILE_MODE, prepare_sqlite_files, sqlite_files } from "./files.ts";

/** How long a restore waits for another connection to let the database go before it says one holds it. */
const EXCLUSIVE_WAIT_MS = 1000;

function is_memory(path: string): boolean {
  return path === ":memory:";
}

/** Opens the database at `path`, which must exist. */
function open_existing(path: string, driver: SqliteDriver, busy_timeout_ms: number): SqliteDatabase {
  if (!existsSync(path)) throw new StoreError(`there is no SQLite database at ${path}`);
  try {
    return open_sqlite_database(path, busy_timeout_ms, driver);
  } catch (error) {
    throw map_sqlite_error(error);
  }
}

/**
 * Runs `body` on the database at `path`, which must exist; closes it after, its statements
 * finalized (a statement left alive keeps the connection, and its locks, open).
 */
function with_database<T>(path: string, driver: SqliteDriver, busy_timeout_ms: number, body: (db: SqliteDatabase) => T): T {
  const db = open_existing(path, driver, busy_timeout_ms);
  try {
    return body(db);
  } catch (error) {
    throw map_sqlite_error(error);
  } finally {
    db.close(true);
  }
}

/** An empty file only the owner may read, which SQLite then fills (VACUUM INTO keeps an empty target's mode). */
function create_private_file(path: string): void {
  closeSync(openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, SQLITE_FILE_MODE));
}

/** Copies the database at `path` into the new file `out`; returns the copy's schema version. */
export async function sqlite_snapshot(path: string, out: string, driver: SqliteDriver, busy_timeout_ms: number): Promise<number> {
  if (is_memory(path)) throw new StoreError("sqlite::memory: lives only inside the process that opened it: there is nothing to back up");
  create_private_file(out);
  try {
    const db = open_existing(path, driver, busy_timeout_ms);
    try {
      await driver.snapshot(db, out);
    } catch (error) {
      throw map_sqlite_error(error);
    } finally {
      db.close(true);
    }
    return sqlite_payload_check(out, driver).schema;
  } catch (error) {
    rmSync(out, { force: true });
    throw error;
  }
}

/**
 * Checks a copy: SQLite's own `PRAGMA integrity_check` (every page, index and constraint), and
 * its schema version. Raises StoreError naming what is wrong.
 */
export function sqlite_payload_check(path: string, driver: SqliteDriver): { schema: number } {
  let db: SqliteDatabase;
  try {
    db = driver.open(path, { readonly: true });
  } catch (error) {
    throw new StoreError(`the backup does not hold a SQLite database: ${(error as Error).message}`);
  }
  try {
    const rows = db.query("PRAGMA integrity_check").all() as { integrity_check: string }[];
    const problems = rows.map((row) => row.integrity_check).filter((line) => line !== "ok");
    if (problems.length > 0) throw new StoreError(`the backup's SQLite database is damaged: ${problems.slice(0, 3).join("; ")}`);
    return { schema: sqlite_schema_version(db) };
  } catch (error) {
    if (error instanceof StoreError) throw error;
    throw new StoreError(`the backup does not hold a sound SQLite database: ${(error as Error).message}`);
  } finally {
    db.close(true);
  }
}

/** The number of tables in the database at `path` (0 when there is no file yet). */
export function sqlite_table_count(path: string, driver: SqliteDriver, busy_timeout_ms: number): number {
  if (is_memory(path)) throw new StoreError("sqlite::memory: lives only inside the process that opened it: a restore into it would be lost at once");
  if (!existsSync(path)) return 0;
  return with_database(path, driver, busy_timeout_ms, (db) => {
    const row = db.query("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").get() as { n: number };
    return Number(row.n);
  });
}

/** Raises StoreError when another connection (a running server) has the database at `path` open. */
export function take_alone(path: string, driver: SqliteDriver): void {
  with_database(path, driver, EXCLUSIVE_WAIT_MS, (db) => {
    let mode: string | undefined;
    try {
      // exec, not a statement's get(): a statement left stepping holds the read lock the change needs.
      db.exec("PRAGMA journal_mode = DELETE");
      mode = (db.query("PRAGMA journal_mode").get() as { journal_mode?: string } | null)?.journal_mode;
    } catch {
      mode = undefined;
    }
    if (mode !== "delete") {
      throw new StoreError(`the SQLite database ${path} is in use by another process (a running server?): stop it, then restore`);
    }
  });
}

/**
 * Puts the SQLite database in `payload` at `path`: migrated forward, then moved over the target
 * with one rename. The target must have no other connection open (a running server). `payload`
 * is moved (or copied when on another file system) and gone afterwards.
 */
export function sqlite_install(path: string, payload: string, driver: SqliteDriver): { applied: number[]; version: number } {
  if (is_memory(path)) throw new StoreError("sqlite::memory: lives only inside the process that opened it: a restore into it would be lost at once");
  if (existsSync(path)) take_alone(path, driver);
  else prepare_sqlite_files(path);
  const staged = join(dirname(path), `.${basename(path)}.restoring-${crypto.randomUUID()}`);
  try {
    try {
      renameSync(payload, staged);
    } catch (error) {
      if ((error as { code?: unknown }).code !== "EXDEV") throw error;
      copyFileSync(payload, staged);
      rmSync(payload, { force: true });
    }
    const db = open_sqlite_database(staged, 5000, driver);
    let result: { applied: number[]; version: number };
    try {
      result = migrate_sqlite(db);
      // The staged file goes back to a single file: its WAL must not stay behind under the old name.
      db.exec("PRAGMA journal_mode = DELETE");
    } finally {
      db.close(true);
    }
    // The target's own -wal and -shm were folded and removed by take_alone; any left are stale.
    for (const file of sqlite_files(path).slice(1)) rmSync(file, { force: true });
    renameSync(staged, path);
    return result;
  } catch (error) {
    for (const file of sqlite_files(staged)) rmSync(file, { force: true });
    throw map_sqlite_error(error);
  }
}
