/**
 * The PostgreSQL adapter, through Bun.SQL's pool. Several instances can share one database:
 * every single-use operation is one conditional UPDATE/INSERT, and migrations take an advisory
 * lock. A connection failure raises StoreUnavailableError within `connectionTimeout` seconds;
 * the pool reconnects on the next call once the server is back.
 */
import type { SQL } from "bun";
import { DEFAULT_PURGE_BATCH } from "../defaults.ts";
import { guard } from "../guard.ts";
import { requireCurrentSchema } from "../migrations/index.ts";
import { emptyPurgeCounts, purgeTargets } from "../purge.ts";
import type { LifecycleStore, MigrationResult, OpenStoreOptions, Store } from "../types.ts";
import { pgClients } from "./clients.ts";
import { createPool, DEFAULT_POOL_SIZE, isDeadConnection, mapPostgresError, migratePostgres, postgresSchemaVersion } from "./connection.ts";
import { pgInitialAccessTokens, pgKeys } from "./keys.ts";
import { pgAudit, pgCounters, pgReplay } from "./limits.ts";
import { pgGrants, pgInteractions, pgSessions } from "./sessions.ts";
import { pgCodes, pgTokens } from "./tokens.ts";
import { pgUsers } from "./users.ts";

export async function openPostgresStore(url: string, options: OpenStoreOptions = {}): Promise<Store> {
  const sql = createPool(url, options);
  try {
    if (options.migrate === false) requireCurrentSchema(await postgresSchemaVersion(sql));
    else await migratePostgres(sql);
  } catch (error) {
    await sql.close({ timeout: 0 }).catch(() => {});
    throw mapPostgresError(error);
  }
  // Every pooled connection may be dead after an outage, so allow one try per connection.
  return guard(postgresStore(sql), mapPostgresError, { retryIf: isDeadConnection, attempts: (options.max ?? DEFAULT_POOL_SIZE) + 1 });
}

/** Applies pending migrations without opening a store (for `idp migrate`). */
export async function migratePostgresDatabase(url: string, options: OpenStoreOptions = {}): Promise<MigrationResult> {
  const sql = createPool(url, { ...options, max: 1 });
  try {
    return await migratePostgres(sql);
  } catch (error) {
    throw mapPostgresError(error);
  } finally {
    await sql.close({ timeout: 0 }).catch(() => {});
  }
}

function postgresStore(sql: SQL): Store {
  const lifecycle: LifecycleStore = {
    kind: "postgres",
    migrate: () => migratePostgres(sql),
    async purgeExpired(now, batchSize = DEFAULT_PURGE_BATCH) {
      const counts = emptyPurgeCounts();
      for (const target of purgeTargets) {
        const expired = target.expired.replaceAll(":now", "$1");
        // SKIP LOCKED: instances purging at the same time take different rows instead of waiting.
        const text = `DELETE FROM ${target.table} WHERE ctid = ANY(ARRAY(
          SELECT ctid FROM ${target.table} WHERE ${expired} LIMIT $2 FOR UPDATE SKIP LOCKED))`;
        for (;;) {
          const result = await sql.unsafe(text, [now, batchSize]);
          counts[target.count] += result.count;
          if (result.count < batchSize) break;
        }
      }
      return counts;
    },
    async ping() {
      await sql`SELECT 1`;
    },
    async close() {
      await sql.close({ timeout: 5 });
    },
  };
  return {
    ...pgUsers(sql),
    ...pgClients(sql),
    ...pgSessions(sql),
    ...pgInteractions(sql),
    ...pgGrants(sql),
    ...pgCodes(sql),
    ...pgTokens(sql),
    ...pgKeys(sql),
    ...pgInitialAccessTokens(sql),
    ...pgReplay(sql),
    ...pgCounters(sql),
    ...pgAudit(sql),
    ...lifecycle,
  };
}
