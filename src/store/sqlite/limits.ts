/** SQLite: client-assertion replay protection, rate-limit counters and audit events. */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { decode } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { DEFAULT_AUDIT_LIMIT, DEFAULT_PURGE_BATCH } from "../default_limits.ts";
import { audit_row, audit_spec } from "../rows/audit.ts";
import type { AuditStore, CounterState, CounterStore, KeyedCount, ReplayStore, SignInDay, StoreOverview } from "../types.ts";

export function sqlite_replay(db: SqliteDatabase): Sync<ReplayStore> {
  // Inserts, or takes over a row whose previous use has expired; a live row makes it return nothing.
  const use = db.prepare(
    `INSERT INTO used_jtis (client_id, jti, expires_at) VALUES ($client_id, $jti, $expires_at)
     ON CONFLICT (client_id, jti) DO UPDATE SET expires_at = excluded.expires_at WHERE used_jtis.expires_at <= $now
     RETURNING 1 AS used`,
  );
  return {
    use_jti(client_id, jti, expires_at, now) {
      return use.get({ client_id: client_id, jti, expires_at: expires_at, now: now ?? now_seconds() }) !== null;
    },
  };
}

export function sqlite_counters(db: SqliteDatabase): Sync<CounterStore> {
  const hit = db.prepare(
    `INSERT INTO counters (key, count, reset_at) VALUES ($key, 1, $now + $window)
     ON CONFLICT (key) DO UPDATE SET
       count = CASE WHEN counters.reset_at <= $now THEN 1 ELSE counters.count + 1 END,
       reset_at = CASE WHEN counters.reset_at <= $now THEN $now + $window ELSE counters.reset_at END
     RETURNING count, reset_at`,
  );
  const get = db.prepare("SELECT count, reset_at FROM counters WHERE key = $key");
  const reset = db.prepare("DELETE FROM counters WHERE key = $key");
  // The hit of `hit`, but only while the window's count is below the limit: a full window makes
  // the upsert's WHERE false and it returns nothing. One statement on the one writer connection.
  const reserve = db.prepare(
    `INSERT INTO counters (key, count, reset_at) VALUES ($key, 1, $now + $window)
     ON CONFLICT (key) DO UPDATE SET
       count = CASE WHEN counters.reset_at <= $now THEN 1 ELSE counters.count + 1 END,
       reset_at = CASE WHEN counters.reset_at <= $now THEN $now + $window ELSE counters.reset_at END
     WHERE counters.reset_at <= $now OR counters.count < $limit
     RETURNING count, reset_at`,
  );
  const release = db.prepare("UPDATE counters SET count = count - 1 WHERE key = $key AND reset_at = $reset_at AND count > 0");
  return {
    hit(key, window_seconds, now) {
      return hit.get({ key, now, window: window_seconds }) as CounterState;
    },
    get_counter(key) {
      return (get.get({ key }) as CounterState | null) ?? null;
    },
    reset_counter(key) {
      reset.run({ key });
    },
    reserve(key, limit, window_seconds, now) {
      if (limit < 1) return { allowed: false, ...((get.get({ key }) as CounterState | null) ?? { count: 0, reset_at: now + window_seconds }) };
      const counted = reserve.get({ key, now, window: window_seconds, limit }) as CounterState | null;
      if (counted !== null) return { allowed: true, ...counted };
      // Same call, same connection: nothing ran in between, the row is the one that refused.
      return { allowed: false, ...(get.get({ key }) as CounterState) };
    },
    release(key, reset_at) {
      release.run({ key, reset_at });
    },
  };
}

export function sqlite_audit(db: SqliteDatabase): Sync<AuditStore> {
  const insert = db.prepare(
    `INSERT INTO audit_events (at, type, user_id, client_id, ip, outcome, details)
     VALUES ($at, $type, $user_id, $client_id, $ip, $outcome, $details) RETURNING id`,
  );
  const list = db.prepare(
    `SELECT * FROM audit_events
     WHERE ($user_id IS NULL OR user_id = $user_id) AND ($client_id IS NULL OR client_id = $client_id)
       AND ($type IS NULL OR type = $type) AND ($since IS NULL OR at >= $since) AND ($until IS NULL OR at <= $until)
       AND ($before_at IS NULL OR at < $before_at OR (at = $before_at AND id < $before_id))
     ORDER BY at DESC, id DESC LIMIT $limit`,
  );
  const purge = db.prepare("DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE at < $before LIMIT $limit)");
  // The sign-in counts scan the day's events through audit_events_at, never the whole log.
  const overview = db.prepare(
    `SELECT (SELECT count(*) FROM users) AS users,
            (SELECT count(*) FROM clients) AS clients,
            (SELECT count(*) FROM groups) AS groups,
            (SELECT count(*) FROM sessions WHERE expires_at > $now) AS active_sessions,
            (SELECT count(*) FROM audit_events WHERE at >= $since AND type = 'login' AND outcome = 'success') AS sign_ins,
            (SELECT count(*) FROM audit_events WHERE at >= $since AND type = 'login' AND outcome = 'failure') AS failed_sign_ins`,
  );
  const failed_by = (column: "client_id" | "ip") =>
    db.prepare(
      `SELECT ${column} AS key, count(*) AS count FROM audit_events WHERE at >= $since AND type = 'login' AND outcome = 'failure'
       GROUP BY ${column} ORDER BY count DESC, ${column} IS NULL, ${column} LIMIT $top`,
    );
  const failed_by_client = failed_by("client_id");
  const failed_by_ip = failed_by("ip");
  const per_day = db.prepare(
    `SELECT (at - $from) / 86400 AS day, sum(outcome = 'success') AS successes, sum(outcome = 'failure') AS failures
     FROM audit_events WHERE at >= $from AND type = 'login' GROUP BY day ORDER BY day`,
  );
  return {
    count_overview(now, since) {
      return overview.get({ now, since }) as StoreOverview;
    },
    sign_in_stats({ failures_since, days_from, top }) {
      return {
        failed_by_client: failed_by_client.all({ since: failures_since, top }) as KeyedCount[],
        failed_by_ip: failed_by_ip.all({ since: failures_since, top }) as KeyedCount[],
        days: per_day.all({ from: days_from }) as SignInDay[],
      };
    },
    add_audit_event(input) {
      const row = audit_row(input);
      const bound = { ...row, details: row.details === null ? null : JSON.stringify(row.details) };
      const { id } = insert.get(bound) as { id: number };
      return { id, ...row };
    },
    list_audit_events(query = {}) {
      const rows = list.all({
        user_id: query.user_id ?? null,
        client_id: query.client_id ?? null,
        type: query.type ?? null,
        since: query.since ?? null,
        until: query.until ?? null,
        before_at: query.before?.at ?? null,
        before_id: query.before?.id ?? null,
        limit: query.limit ?? DEFAULT_AUDIT_LIMIT,
      });
      return rows.map((raw) => decode(audit_spec, raw));
    },
    purge_audit_events(before, batch_size = DEFAULT_PURGE_BATCH) {
      let total = 0;
      for (;;) {
        const deleted = purge.run({ before, limit: batch_size }).changes;
        total += deleted;
        if (deleted < batch_size) return total;
      }
    },
  };
}
