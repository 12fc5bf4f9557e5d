/**
 * The PostgreSQL adapter, through the pool of the runtime's driver (driver.ts, load_driver.ts:
 * Bun.SQL, or postgres.js on Deno). Several instances can share one database:
 * every single-use operation is one conditional UPDATE/INSERT, and migrations take an advisory
 * lock. A connection failure raises StoreUnavailableError within `connection_timeout` seconds;
 * the pool reconnects on the next call once the server is back.
 */
import { DEFAULT_PURGE_BATCH } from "../default_limits.ts";
import { guard } from "../guard.ts";
import { require_current_schema } from "../migrations/index.ts";
import { empty_purge_counts, next_turn, purge_in_batches, purge_targets } from "../purge.ts";
import type { LifecycleStore, MigrationResult, OpenStoreOptions, Store } from "../types.ts";
import { pg_clients } from "./clients.ts";
import { create_pool, DEFAULT_POOL_SIZE, is_dead_connection, map_postgres_error, migrate_postgres, postgres_schema_version } from "./connection.ts";
import type { PgDriver, PgPool } from "./driver.ts";
import { load_postgres_driver } from "./load_driver.ts";
import { pg_initial_access_tokens, pg_keys } from "./keys.ts";
import { pg_audit, pg_counters, pg_replay } from "./limits.ts";
import { pg_mail } from "./mail.ts";
import { pg_webhooks } from "./webhooks.ts";
import { pg_grants, pg_interactions, pg_sessions } from "./sessions.ts";
import { pg_codes, pg_tokens } from "./tokens.ts";
import { pg_resource_servers } from "./resource_servers.ts";
import { pg_saml } from "./saml.ts";
import { pg_forward_auth } from "./forward_auth.ts";
import { pg_users } from "./users.ts";
import { pg_passkeys } from "./passkeys.ts";
import { pg_groups } from "./groups.ts";
import { pg_scim } from "./scim.ts";
import { pg_federation } from "./federation.ts";
import { pg_user_tokens } from "./user_tokens.ts";
import { pg_pushed_requests } from "./pushed_requests.ts";
import { pg_device_authorizations } from "./device_authorizations.ts";
import { pg_ldap } from "./ldap.ts";
import { pg_attributes } from "./attributes.ts";
import { pg_transfer } from "./transfer.ts";

/** `driver`: the runtime's unless given. */
export async function open_postgres_store(url: string, options: OpenStoreOptions = {}, driver?: PgDriver): Promise<Store> {
  const chosen = driver ?? (await load_postgres_driver());
  const pool = create_pool(chosen, url, options);
  try {
    if (options.migrate === false) require_current_schema(await postgres_schema_version(pool.sql));
    else await migrate_postgres(pool.sql);
  } catch (error) {
    await pool.close(0).catch(() => {});
    throw map_postgres_error(chosen, error);
  }
  // Every pooled connection may be dead after an outage, so allow one try per connection.
  return guard(postgres_store(pool), (error) => map_postgres_error(chosen, error), {
    retry_if: (error) => is_dead_connection(chosen, error),
    attempts: (options.max ?? DEFAULT_POOL_SIZE) + 1,
  });
}

/** Applies pending migrations without opening a store (for `idp migrate`). */
export async function migrate_postgres_database(url: string, options: OpenStoreOptions = {}): Promise<MigrationResult> {
  const driver = await load_postgres_driver();
  const pool = create_pool(driver, url, { ...options, max: 1 });
  try {
    return await migrate_postgres(pool.sql);
  } catch (error) {
    throw map_postgres_error(driver, error);
  } finally {
    await pool.close(0).catch(() => {});
  }
}

function postgres_store(pool: PgPool): Store {
  const { sql } = pool;
  const lifecycle: LifecycleStore = {
    kind: "postgres",
    migrate: () => migrate_postgres(sql),
    async purge_expired(now, batch_size = DEFAULT_PURGE_BATCH, pause = next_turn) {
      const counts = empty_purge_counts();
      for (const target of purge_targets) {
        const expired = target.expired.replaceAll(":now", "$1");
        // SKIP LOCKED: instances purging at the same time take different rows instead of waiting.
        const text = `DELETE FROM ${target.table} WHERE ctid = ANY(ARRAY(
          SELECT ctid FROM ${target.table} WHERE ${expired} LIMIT $2 FOR UPDATE SKIP LOCKED))`;
        counts[target.count] += await purge_in_batches(batch_size, pause, async (limit) => (await sql.unsafe(text, [now, limit])).count);
      }
      return counts;
    },
    async claim_job(name, now, interval_seconds) {
      const rows = await sql`INSERT INTO job_runs (name, started_at) VALUES (${name}, ${now})
        ON CONFLICT (name) DO UPDATE SET started_at = EXCLUDED.started_at WHERE job_runs.started_at <= ${now - interval_seconds} RETURNING name`;
      return rows.length === 1;
    },
    async ping() {
      await sql`SELECT 1`;
    },
    async close() {
      await pool.close(5);
    },
  };
  return {
    ...pg_users(sql),
    ...pg_user_tokens(sql),
    ...pg_clients(sql),
    ...pg_sessions(sql),
    ...pg_interactions(sql),
    ...pg_grants(sql),
    ...pg_codes(sql),
    ...pg_tokens(sql),
    ...pg_resource_servers(sql),
    ...pg_saml(sql),
    ...pg_forward_auth(sql),
    ...pg_keys(sql),
    ...pg_initial_access_tokens(sql),
    ...pg_replay(sql),
    ...pg_counters(sql),
    ...pg_audit(sql),
    ...pg_mail(sql),
    ...pg_webhooks(sql),
    ...pg_passkeys(sql),
    ...pg_groups(sql),
    ...pg_scim(sql),
    ...pg_federation(sql),
    ...pg_pushed_requests(sql),
    ...pg_device_authorizations(sql),
    ...pg_ldap(sql),
    ...pg_attributes(sql),
    ...pg_transfer(sql),
    ...lifecycle,
  };
}
