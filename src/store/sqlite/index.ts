/**
 * The SQLite adapter: one WAL-mode file (or `:memory:`), statements prepared once at open, through
 * the runtime's driver (driver.ts, load_driver.ts). The modules implement the store synchronously;
 * group_commit.ts runs their calls, the writes of one event-loop turn in one transaction, and maps
 * database errors to the store's (map_sqlite_error).
 */
import { DEFAULT_PURGE_BATCH } from "../default_limits.ts";
import { empty_purge_counts, next_turn, purge_in_batches, purge_targets } from "../purge.ts";
import type { DataStore, LifecycleStore, MigrationResult, OpenStoreOptions, Store } from "../types.ts";
import { SQLITE_ACCESS } from "./access.ts";
import { sqlite_clients } from "./clients.ts";
import { GroupCommit, flush_open_batch, type Method, type Sync } from "./group_commit.ts";
import { map_sqlite_error, migrate_sqlite, open_sqlite_database, sqlite_schema_version } from "./connection.ts";
import type { SqliteDatabase, SqliteDriver } from "./driver.ts";
import { load_sqlite_driver } from "./load_driver.ts";
import { require_current_schema } from "../migrations/index.ts";
import { sqlite_initial_access_tokens, sqlite_keys } from "./keys.ts";
import { sqlite_audit, sqlite_counters, sqlite_replay } from "./limits.ts";
import { sqlite_mail } from "./mail.ts";
import { sqlite_webhooks } from "./webhooks.ts";
import { sqlite_grants, sqlite_interactions, sqlite_sessions } from "./sessions.ts";
import { sqlite_codes, sqlite_tokens } from "./tokens.ts";
import { sqlite_resource_servers } from "./resource_servers.ts";
import { sqlite_saml } from "./saml.ts";
import { sqlite_forward_auth } from "./forward_auth.ts";
import { sqlite_users } from "./users.ts";
import { sqlite_passkeys } from "./passkeys.ts";
import { sqlite_groups } from "./groups.ts";
import { sqlite_scim } from "./scim.ts";
import { sqlite_federation } from "./federation.ts";
import { sqlite_user_tokens } from "./user_tokens.ts";
import { sqlite_pushed_requests } from "./pushed_requests.ts";
import { sqlite_device_authorizations } from "./device_authorizations.ts";
import { sqlite_ldap } from "./ldap.ts";
import { sqlite_attributes } from "./attributes.ts";
import { sqlite_transfer } from "./transfer.ts";

/** `driver`: the runtime's unless given (a test runs the suite on node:sqlite under Bun too). */
export async function open_sqlite_store(path: string, options: OpenStoreOptions = {}, driver?: SqliteDriver): Promise<Store> {
  const chosen = driver ?? (await load_sqlite_driver());
  // A batch another store of this process holds open would block the migration below.
  flush_open_batch();
  let db: SqliteDatabase;
  try {
    db = open_sqlite_database(path, options.busy_timeout ?? 5000, chosen);
  } catch (error) {
    throw map_sqlite_error(error);
  }
  try {
    if (options.migrate === false) require_current_schema(sqlite_schema_version(db));
    else migrate_sqlite(db);
    return sqlite_store(db, options.deferred_writes === true);
  } catch (error) {
    db.close();
    throw map_sqlite_error(error);
  }
}

/** Applies pending migrations to a SQLite file without opening a store (for `idp migrate`). */
export async function migrate_sqlite_file(path: string, options: OpenStoreOptions = {}): Promise<MigrationResult> {
  const driver = await load_sqlite_driver();
  flush_open_batch();
  const db = open_sqlite_database(path, options.busy_timeout ?? 5000, driver);
  try {
    return migrate_sqlite(db);
  } catch (error) {
    throw map_sqlite_error(error);
  } finally {
    db.close();
  }
}

/** Statements are prepared here, so the schema must exist (migrate first). */
function sqlite_store(db: SqliteDatabase, deferred_writes: boolean): Store {
  const group = new GroupCommit(db, map_sqlite_error, undefined, deferred_writes);
  const data: Sync<DataStore> = {
    ...sqlite_users(db),
    ...sqlite_user_tokens(db),
    ...sqlite_clients(db),
    ...sqlite_sessions(db),
    ...sqlite_interactions(db),
    ...sqlite_grants(db),
    ...sqlite_codes(db),
    ...sqlite_tokens(db),
    ...sqlite_resource_servers(db),
    ...sqlite_saml(db),
    ...sqlite_forward_auth(db),
    ...sqlite_keys(db),
    ...sqlite_initial_access_tokens(db),
    ...sqlite_replay(db),
    ...sqlite_counters(db),
    ...sqlite_audit(db),
    ...sqlite_mail(db),
    ...sqlite_webhooks(db),
    ...sqlite_passkeys(db),
    ...sqlite_groups(db),
    ...sqlite_federation(db),
    ...sqlite_pushed_requests(db),
    ...sqlite_device_authorizations(db),
    ...sqlite_ldap(db),
    ...sqlite_attributes(db),
    ...sqlite_transfer(db),
    ...sqlite_scim(db),
  };
  const store: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(data) as [string, Method][]) {
    // Each method runs as access.ts declares it; an undeclared one does not compile.
    const access = SQLITE_ACCESS[name as keyof DataStore];
    if (access === "alone") store[name] = (...args: never[]) => group.run(() => method(...args));
    else if (access === "read") store[name] = (...args: never[]) => group.read(method, args);
    else if (access === "write") store[name] = (...args: never[]) => group.write(method, args);
    else throw new Error(`store method ${name} has no access declared in sqlite/access.ts`);
  }
  const lifecycle: LifecycleStore = {
    kind: "sqlite",
    migrate() {
      return group.run(() => migrate_sqlite(db));
    },
    async purge_expired(now, batch_size = DEFAULT_PURGE_BATCH, pause = next_turn) {
      const counts = empty_purge_counts();
      for (const target of purge_targets) {
        const expired = target.expired.replaceAll(":now", "$now");
        const purge = db.query(`DELETE FROM ${target.table} WHERE rowid IN (SELECT rowid FROM ${target.table} WHERE ${expired} LIMIT $limit)`);
        // One short write transaction per batch, and the event loop free between two: this
        // process's requests (and other processes' writes) wait for one batch at most.
        counts[target.count] += await purge_in_batches(batch_size, pause, (limit) => group.run(() => purge.run({ now, limit }).changes));
      }
      return counts;
    },
    claim_job(name, now, interval_seconds) {
      // SQLite 3.35 or later: an upsert with RETURNING gives no row when its WHERE kept the old one.
      const claim = db.query(
        "INSERT INTO job_runs (name, started_at) VALUES ($name, $now) ON CONFLICT (name) DO UPDATE SET started_at = excluded.started_at WHERE job_runs.started_at <= $due RETURNING name",
      );
      return group.run(() => claim.get({ name, now, due: now - interval_seconds }) !== null);
    },
    ping() {
      return group.run(() => {
        db.query("SELECT 1").get();
      });
    },
    async close() {
      if (group.is_closed) return;
      // Commits the open batch first: the calls in it settle as they would at the end of the turn.
      group.close();
      // true: finalize the prepared statements too, so later calls fail instead of using a zombie connection.
      db.close(true);
    },
  };
  return Object.assign(store as DataStore, lifecycle);
}
