/**
 * The SQLite adapter: one WAL-mode file (or `:memory:`), statements prepared once at open. The
 * modules implement the store synchronously; group-commit.ts runs their calls, the writes of one
 * event-loop turn in one transaction, and maps database errors to the store's (mapSqliteError).
 */
import type { Database } from "bun:sqlite";
import { DEFAULT_PURGE_BATCH } from "../defaults.ts";
import { emptyPurgeCounts, purgeTargets } from "../purge.ts";
import { type LifecycleStore, type MigrationResult, type OpenStoreOptions, type Store } from "../types.ts";
import { sqliteClients } from "./clients.ts";
import { GroupCommit, flushOpenBatch, type Method, type Sync } from "./group-commit.ts";
import { mapSqliteError, migrateSqlite, openSqliteDatabase, sqliteSchemaVersion } from "./connection.ts";
import { requireCurrentSchema } from "../migrations/index.ts";
import { sqliteInitialAccessTokens, sqliteKeys } from "./keys.ts";
import { sqliteAudit, sqliteCounters, sqliteReplay } from "./limits.ts";
import { sqliteGrants, sqliteInteractions, sqliteSessions } from "./sessions.ts";
import { sqliteCodes, sqliteTokens } from "./tokens.ts";
import { sqliteUsers } from "./users.ts";

export async function openSqliteStore(path: string, options: OpenStoreOptions = {}): Promise<Store> {
  // A batch another store of this process holds open would block the migration below.
  flushOpenBatch();
  let db: Database;
  try {
    db = openSqliteDatabase(path, options.busyTimeout ?? 5000);
  } catch (error) {
    throw mapSqliteError(error);
  }
  try {
    if (options.migrate === false) requireCurrentSchema(sqliteSchemaVersion(db));
    else migrateSqlite(db);
    return sqliteStore(db);
  } catch (error) {
    db.close();
    throw mapSqliteError(error);
  }
}

/** Applies pending migrations to a SQLite file without opening a store (for `idp migrate`). */
export async function migrateSqliteFile(path: string, options: OpenStoreOptions = {}): Promise<MigrationResult> {
  flushOpenBatch();
  const db = openSqliteDatabase(path, options.busyTimeout ?? 5000);
  try {
    return migrateSqlite(db);
  } catch (error) {
    throw mapSqliteError(error);
  } finally {
    db.close();
  }
}

/** The SQLite adapter's data methods; reads are named get*, list*, find*, count* (and keysVersion). */
type DataStore = Omit<Store, keyof LifecycleStore>;

/**
 * SELECT-only methods: with no batch open they run at once, without a transaction. Any other
 * method opens a batch (group-commit.ts). Naming a write here would still be correct (it would
 * autocommit on its own), only slower under load; naming a read a write would only open a batch.
 */
const READ = /^(get|list|find|count)[A-Z]|^keysVersion$/;

/** Batched deletes that commit one batch at a time, as purgeExpired, so no lock is held for long. */
const ALONE = new Set<string>(["purgeAuditEvents"]);

/** Statements are prepared here, so the schema must exist (migrate first). */
function sqliteStore(db: Database): Store {
  const group = new GroupCommit(db, mapSqliteError);
  const data: Sync<DataStore> = {
    ...sqliteUsers(db),
    ...sqliteClients(db),
    ...sqliteSessions(db),
    ...sqliteInteractions(db),
    ...sqliteGrants(db),
    ...sqliteCodes(db),
    ...sqliteTokens(db),
    ...sqliteKeys(db),
    ...sqliteInitialAccessTokens(db),
    ...sqliteReplay(db),
    ...sqliteCounters(db),
    ...sqliteAudit(db),
  };
  const store: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(data) as [string, Method][]) {
    if (ALONE.has(name)) store[name] = (...args: never[]) => group.run(() => method(...args));
    else if (READ.test(name)) store[name] = (...args: never[]) => group.read(method, args);
    else store[name] = (...args: never[]) => group.write(method, args);
  }
  const lifecycle: LifecycleStore = {
    kind: "sqlite",
    migrate() {
      return group.run(() => migrateSqlite(db));
    },
    purgeExpired(now, batchSize = DEFAULT_PURGE_BATCH) {
      return group.run(() => {
        const counts = emptyPurgeCounts();
        for (const target of purgeTargets) {
          const expired = target.expired.replaceAll(":now", "$now");
          const purge = db.query(`DELETE FROM ${target.table} WHERE rowid IN (SELECT rowid FROM ${target.table} WHERE ${expired} LIMIT $limit)`);
          // One short write transaction per batch, so requests are never blocked for long.
          for (;;) {
            const deleted = purge.run({ now, limit: batchSize }).changes;
            counts[target.count] += deleted;
            if (deleted < batchSize) break;
          }
        }
        return counts;
      });
    },
    ping() {
      return group.run(() => {
        db.query("SELECT 1").get();
      });
    },
    async close() {
      if (group.isClosed) return;
      // Commits the open batch first: the calls in it settle as they would at the end of the turn.
      group.close();
      // true: finalize the prepared statements too, so later calls fail instead of using a zombie connection.
      db.close(true);
    },
  };
  return Object.assign(store as DataStore, lifecycle);
}
