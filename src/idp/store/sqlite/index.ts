/** The SQLite adapter: one WAL-mode file (or `:memory:`), statements prepared once at open. */
import type { Database } from "bun:sqlite";
import { DEFAULT_PURGE_BATCH } from "../defaults.ts";
import { guard } from "../guard.ts";
import { emptyPurgeCounts, purgeTargets } from "../purge.ts";
import { StoreUnavailableError, type LifecycleStore, type MigrationResult, type OpenStoreOptions, type Store } from "../types.ts";
import { sqliteClients } from "./clients.ts";
import { mapSqliteError, migrateSqlite, openSqliteDatabase, sqliteSchemaVersion } from "./connection.ts";
import { requireCurrentSchema } from "../migrations/index.ts";
import { sqliteInitialAccessTokens, sqliteKeys } from "./keys.ts";
import { sqliteAudit, sqliteCounters, sqliteReplay } from "./limits.ts";
import { sqliteGrants, sqliteInteractions, sqliteSessions } from "./sessions.ts";
import { sqliteCodes, sqliteTokens } from "./tokens.ts";
import { sqliteUsers } from "./users.ts";

export async function openSqliteStore(path: string, options: OpenStoreOptions = {}): Promise<Store> {
  let db: Database;
  try {
    db = openSqliteDatabase(path, options.busyTimeout ?? 5000);
  } catch (error) {
    throw mapSqliteError(error);
  }
  try {
    if (options.migrate === false) requireCurrentSchema(sqliteSchemaVersion(db));
    else migrateSqlite(db);
    return guard(sqliteStore(db), mapSqliteError);
  } catch (error) {
    db.close();
    throw mapSqliteError(error);
  }
}

/** Applies pending migrations to a SQLite file without opening a store (for `idp migrate`). */
export async function migrateSqliteFile(path: string, options: OpenStoreOptions = {}): Promise<MigrationResult> {
  const db = openSqliteDatabase(path, options.busyTimeout ?? 5000);
  try {
    return migrateSqlite(db);
  } catch (error) {
    throw mapSqliteError(error);
  } finally {
    db.close();
  }
}

/** Statements are prepared here, so the schema must exist (migrate first). */
function sqliteStore(db: Database): Store {
  let closed = false;
  const lifecycle: LifecycleStore = {
    kind: "sqlite",
    async migrate() {
      return migrateSqlite(db);
    },
    async purgeExpired(now, batchSize = DEFAULT_PURGE_BATCH) {
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
    },
    async ping() {
      if (closed) throw new StoreUnavailableError("SQLite store is closed");
      db.query("SELECT 1").get();
    },
    async close() {
      if (closed) return;
      closed = true;
      // true: finalize the prepared statements too, so later calls fail instead of using a zombie connection.
      db.close(true);
    },
  };
  return {
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
    ...lifecycle,
  };
}
