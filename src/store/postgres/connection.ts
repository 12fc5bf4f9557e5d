/** Connecting to PostgreSQL through the runtime's driver (driver.ts), its migrations, and the mapping of its errors. */
import { error_message } from "../guard.ts";
import { pending_migrations } from "../migrations/index.ts";
import { now_seconds } from "../clock.ts";
import { StoreConflictError, StoreError, StoreReferenceError, StoreUnavailableError, type MigrationResult, type OpenStoreOptions } from "../types.ts";
import type { PgDriver, PgPool, PgSql } from "./driver.ts";

export const DEFAULT_POOL_SIZE = 10;

export function create_pool(driver: PgDriver, url: string, options: OpenStoreOptions): PgPool {
  return driver.connect(url, {
    max: options.max ?? DEFAULT_POOL_SIZE,
    // Fail fast (then 503) rather than hang when the server is down; the pool reconnects later.
    connection_timeout: options.connection_timeout ?? 5,
    idle_timeout: options.idle_timeout ?? 30,
  });
}

// pg_advisory_xact_lock(int, int) key: "idp!" and 1 (migrations). Held until the transaction ends.
const MIGRATION_LOCK = [0x69647021, 1] as const;

/**
 * Applies pending migrations in one transaction under an advisory lock, so instances that start
 * together wait for each other and each migration is applied exactly once.
 */
export async function migrate_postgres(sql: PgSql): Promise<MigrationResult> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK[0]}::int, ${MIGRATION_LOCK[1]}::int)`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`;
    const rows = await tx<{ version: number }>`SELECT version FROM schema_migrations`;
    const applied = new Set(rows.map((r) => Number(r.version)));
    const done: number[] = [];
    for (const migration of pending_migrations(applied)) {
      if (migration.postgres.trim() !== "") await tx.unsafe(migration.postgres);
      if (migration.rows !== undefined) {
        const rows: Record<string, unknown>[] = [...(await tx.unsafe(migration.rows.select))];
        for (const params of migration.rows.rewrite(rows)) await tx.unsafe(migration.rows.update_postgres, params);
      }
      await tx`INSERT INTO schema_migrations (version, name, applied_at) VALUES (${migration.version}, ${migration.name}, ${now_seconds()})`;
      applied.add(migration.version);
      done.push(migration.version);
    }
    return { applied: done, version: Math.max(0, ...applied) };
  });
}

/** The applied schema version, 0 for an empty database. */
export async function postgres_schema_version(sql: PgSql): Promise<number> {
  const [exists] = await sql`SELECT to_regclass('schema_migrations') IS NOT NULL AS present`;
  if (!exists?.present) return 0;
  const [row] = await sql`SELECT max(version) AS version FROM schema_migrations`;
  return Number(row?.version ?? 0);
}

// SQLSTATE classes meaning "the database is not there right now": connection exceptions (08),
// operator intervention / shutdown (57P), insufficient resources (53), authentication (28),
// unknown database (3D000).
const UNAVAILABLE_SQLSTATE = /^(08|57P|53|28|3D000)/;

/**
 * A pooled connection that died while idle (server restart, pg_terminate_backend, network cut)
 * fails the first call that uses it, without running it. Such calls are tried again on another
 * connection. In the rare case where the server committed and the connection died before the
 * answer, the retry fails closed: a code or refresh token reads as reused, an insert conflicts.
 */
export function is_dead_connection(driver: PgDriver, error: unknown): boolean {
  const { sqlstate, connection } = driver.error_facts(error);
  return (
    connection === "dead" ||
    sqlstate === "57P01" || // admin_shutdown (pg_terminate_backend, smart/fast shutdown)
    sqlstate === "57P02" // crash_shutdown
  );
}

export function map_postgres_error(driver: PgDriver, error: unknown): unknown {
  if (error instanceof StoreError) return error;
  const { sqlstate, constraint, connection } = driver.error_facts(error);
  const message = error_message(error);
  if (sqlstate === "23505") return new StoreConflictError(`already exists: ${constraint ?? message}`, constraint, { cause: error });
  if (sqlstate === "23503") return new StoreReferenceError("refers to a row that does not exist", { cause: error });
  if (UNAVAILABLE_SQLSTATE.test(sqlstate) || connection !== null) {
    return new StoreUnavailableError(`PostgreSQL unavailable: ${message}`, { cause: error });
  }
  return error;
}
