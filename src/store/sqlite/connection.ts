/** Opening a SQLite database, its migrations, and the mapping of its errors. */
import { error_code, error_message } from "../guard.ts";
import { pending_migrations } from "../migrations/index.ts";
import { now_seconds } from "../clock.ts";
import { StoreConflictError, StoreError, StoreReferenceError, StoreUnavailableError, type MigrationResult } from "../types.ts";
import type { SqliteDatabase, SqliteDriver } from "./driver.ts";
import { prepare_sqlite_files, restrict_sqlite_files } from "./files.ts";
import { sqlite_write_problem } from "./writable.ts";

/**
 * Opens (creating if needed) the database file; `:memory:` gives a private in-memory one. The
 * files are the owner's only (0600, a created directory 0700: files.ts), whatever the umask.
 */
export function open_sqlite_database(path: string, busy_timeout_ms: number, driver: SqliteDriver): SqliteDatabase {
  // A file or directory this process cannot write: said with the path and the fix (writable.ts).
  const unwritable = sqlite_write_problem(path);
  if (unwritable !== null) throw new StoreUnavailableError(unwritable);
  let db: SqliteDatabase;
  try {
    if (path !== ":memory:") prepare_sqlite_files(path);
    db = driver.open(path);
  } catch (error) {
    throw new StoreUnavailableError(`cannot open SQLite database ${path}: ${error_message(error)}`, { cause: error });
  }
  // busy_timeout first: setting WAL itself needs the lock when another process holds it.
  db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busy_timeout_ms))}`);
  db.exec("PRAGMA journal_mode = WAL");
  // The -wal and -shm files exist from here on; SQLite created them with the database file's mode.
  if (path !== ":memory:") restrict_sqlite_files(path);
  // NORMAL in WAL mode: a commit is appended to the WAL without an fsync; the WAL is synced at
  // each checkpoint. A committed transaction survives a crash of this process (the bytes are in
  // the kernel), and the file is never corrupted; only an OS crash or power loss can lose the
  // last transactions before the next checkpoint. FULL would add an fsync to every commit.
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  // Sorts and temporary indexes (none on the hot paths) stay off the disk.
  db.exec("PRAGMA temp_store = MEMORY");
  // cache_size stays SQLite's 2 MiB and wal_autocheckpoint its 1000 pages: a larger cache did
  // not make writes cheaper (bench/RESULTS.md, "Earlier measurement of the store's write path").
  // No memory map (mmap_size stays 0): reads through a map were somewhat cheaper on /introspect,
  // but every page of the file a read touched then counted in the process's RSS, which grew
  // with the database (bench/RESULTS.md, "No SQLite memory map"). Without it the file's pages
  // stay in the kernel's page cache, outside the process.
  return db;
}

/** The applied migration versions; none for a database without the table. */
function applied_versions(db: SqliteDatabase): Set<number> {
  const table = db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!table) return new Set();
  const rows = db.query("SELECT version FROM schema_migrations").all() as { version: number }[];
  return new Set(rows.map((r) => r.version));
}

/**
 * Applies pending migrations in one IMMEDIATE transaction: the write lock is taken before the
 * applied versions are read again, so two processes opening the same file apply each migration once.
 *
 * An up-to-date database (every start and every CLI command but the first after an upgrade) is
 * only read: no write lock. Under load the server holds the write lock nearly all the time (group
 * commit), and another process waits for it by polling: `idp users list` waited seconds for a
 * lock it had no use for (bench/RESULTS.md, "Group commit and other processes").
 */
export function migrate_sqlite(db: SqliteDatabase): MigrationResult {
  const current = applied_versions(db);
  if (pending_migrations(current).length === 0) return { applied: [], version: Math.max(0, ...current) };
  const run = db.transaction((): MigrationResult => {
    db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT");
    const applied = applied_versions(db);
    const done: number[] = [];
    const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($version, $name, $at)");
    for (const migration of pending_migrations(applied)) {
      if (migration.sqlite.trim() !== "") db.exec(migration.sqlite);
      if (migration.rows !== undefined) {
        const update = db.prepare(migration.rows.update_sqlite);
        const rows = db.query(migration.rows.select).all() as Record<string, unknown>[];
        for (const params of migration.rows.rewrite(rows)) update.run(...(params as never[]));
      }
      record.run({ version: migration.version, name: migration.name, at: now_seconds() });
      applied.add(migration.version);
      done.push(migration.version);
    }
    return { applied: done, version: Math.max(0, ...applied) };
  });
  return run.immediate();
}

/** The applied schema version, 0 for an empty database. */
export function sqlite_schema_version(db: SqliteDatabase): number {
  return Math.max(0, ...applied_versions(db));
}

export function map_sqlite_error(error: unknown): unknown {
  if (error instanceof StoreError) return error;
  const code = error_code(error);
  const message = error_message(error);
  if (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
    const constraint = /constraint failed: (.*)$/.exec(message)?.[1];
    return new StoreConflictError(`already exists: ${constraint ?? message}`, constraint, { cause: error });
  }
  if (code === "SQLITE_CONSTRAINT_FOREIGNKEY") {
    return new StoreReferenceError("refers to a row that does not exist", { cause: error });
  }
  if (/^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|FULL|READONLY)/.test(code) || code === "ERR_SQLITE_CONNECTION_CLOSED" || message === "Database has closed") {
    return new StoreUnavailableError(`SQLite database unavailable: ${message}`, { cause: error });
  }
  return error;
}
