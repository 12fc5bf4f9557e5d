/** PostgreSQL: client-assertion replay protection, rate-limit counters and audit events. */
import type { PgSql } from "./driver.ts";
import { decode } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { DEFAULT_AUDIT_LIMIT, DEFAULT_PURGE_BATCH } from "../default_limits.ts";
import { audit_row, audit_spec } from "../rows/audit.ts";
import type { AuditStore, CounterStore, ReplayStore } from "../types.ts";

export function pg_replay(sql: PgSql): ReplayStore {
  return {
    async use_jti(client_id, jti, expires_at, now) {
      // A concurrent insert of the same key waits for the first to commit, then takes the
      // conflict branch, whose WHERE fails while that use is live: it returns no row.
      const rows: unknown[] = await sql`
        INSERT INTO used_jtis (client_id, jti, expires_at) VALUES (${client_id}, ${jti}, ${expires_at})
        ON CONFLICT (client_id, jti) DO UPDATE SET expires_at = EXCLUDED.expires_at
          WHERE used_jtis.expires_at <= ${now ?? now_seconds()}
        RETURNING 1 AS used`;
      return rows.length > 0;
    },
  };
}

type Counted = { count: unknown; reset_at: unknown };

export function pg_counters(sql: PgSql): CounterStore {
  const state = (raw: Counted) => ({ count: Number(raw.count), reset_at: Number(raw.reset_at) });
  return {
    async hit(key, window_seconds, now) {
      const [raw] = await sql<Counted>`
        INSERT INTO counters (key, count, reset_at) VALUES (${key}, 1, ${now + window_seconds})
        ON CONFLICT (key) DO UPDATE SET
          count = CASE WHEN counters.reset_at <= ${now} THEN 1 ELSE counters.count + 1 END,
          reset_at = CASE WHEN counters.reset_at <= ${now} THEN EXCLUDED.reset_at ELSE counters.reset_at END
        RETURNING count, reset_at`;
      return state(raw!);
    },
    async get_counter(key) {
      const [raw] = await sql<Counted>`SELECT count, reset_at FROM counters WHERE key = ${key}`;
      return raw ? state(raw) : null;
    },
    async reset_counter(key) {
      await sql`DELETE FROM counters WHERE key = ${key}`;
    },
    async reserve(key, limit, window_seconds, now) {
      // The decision is this one statement: ON CONFLICT DO UPDATE locks the row and evaluates its
      // WHERE on the newest committed version, so concurrent reservations from any instance queue
      // on the row and the count never passes the limit. A full window returns no row.
      const [counted] = await sql<Counted>`
        INSERT INTO counters (key, count, reset_at)
        SELECT ${key}::text, 1, ${now + window_seconds}::bigint WHERE ${limit}::bigint >= 1
        ON CONFLICT (key) DO UPDATE SET
          count = CASE WHEN counters.reset_at <= ${now}::bigint THEN 1 ELSE counters.count + 1 END,
          reset_at = CASE WHEN counters.reset_at <= ${now}::bigint THEN EXCLUDED.reset_at ELSE counters.reset_at END
        WHERE counters.reset_at <= ${now}::bigint OR counters.count < ${limit}::bigint
        RETURNING count, reset_at`;
      if (counted) return { allowed: true, ...state(counted) };
      // Refused: report the window that refused, read after the decision (a new snapshot sees the
      // rows of concurrent reservations). Gone meanwhile (reset): still refused, the safe answer.
      const [current] = await sql<Counted>`SELECT count, reset_at FROM counters WHERE key = ${key}`;
      return { allowed: false, ...(current ? state(current) : { count: limit, reset_at: now + window_seconds }) };
    },
    async release(key, reset_at) {
      await sql`UPDATE counters SET count = count - 1 WHERE key = ${key} AND reset_at = ${reset_at} AND count > 0`;
    },
  };
}

export function pg_audit(sql: PgSql): AuditStore {
  return {
    async count_overview(now, since) {
      const rows = await sql`
        SELECT (SELECT count(*) FROM users) AS users,
               (SELECT count(*) FROM clients) AS clients,
               (SELECT count(*) FROM groups) AS groups,
               (SELECT count(*) FROM sessions WHERE expires_at > ${now}) AS active_sessions,
               (SELECT count(*) FROM audit_events WHERE at >= ${since} AND type = 'login' AND outcome = 'success') AS sign_ins,
               (SELECT count(*) FROM audit_events WHERE at >= ${since} AND type = 'login' AND outcome = 'failure') AS failed_sign_ins`;
      const row = rows[0]!;
      return {
        users: Number(row.users),
        clients: Number(row.clients),
        groups: Number(row.groups),
        active_sessions: Number(row.active_sessions),
        sign_ins: Number(row.sign_ins),
        failed_sign_ins: Number(row.failed_sign_ins),
      };
    },
    async sign_in_stats({ failures_since, days_from, top }) {
      const keyed = (rows: { key: string | null; count: unknown }[]) => rows.map((row) => ({ key: row.key, count: Number(row.count) }));
      const by_client = await sql<{ key: string | null; count: unknown }>`
        SELECT client_id AS key, count(*) AS count FROM audit_events WHERE at >= ${failures_since} AND type = 'login' AND outcome = 'failure'
        GROUP BY client_id ORDER BY count DESC, client_id IS NULL, client_id LIMIT ${top}`;
      const by_ip = await sql<{ key: string | null; count: unknown }>`
        SELECT ip AS key, count(*) AS count FROM audit_events WHERE at >= ${failures_since} AND type = 'login' AND outcome = 'failure'
        GROUP BY ip ORDER BY count DESC, ip IS NULL, ip LIMIT ${top}`;
      const days: { day: unknown; successes: unknown; failures: unknown }[] = await sql`
        SELECT (at - ${days_from}::bigint) / 86400 AS day, count(*) FILTER (WHERE outcome = 'success') AS successes,
               count(*) FILTER (WHERE outcome = 'failure') AS failures
        FROM audit_events WHERE at >= ${days_from} AND type = 'login' GROUP BY day ORDER BY day`;
      return {
        failed_by_client: keyed(by_client),
        failed_by_ip: keyed(by_ip),
        days: days.map((row) => ({ day: Number(row.day), successes: Number(row.successes), failures: Number(row.failures) })),
      };
    },
    async add_audit_event(input) {
      const row = audit_row(input);
      const [raw] = await sql`INSERT INTO audit_events ${sql(row)} RETURNING id`;
      return { id: Number(raw!.id), ...row };
    },
    async list_audit_events(query = {}) {
      const user_id = query.user_id ?? null;
      const client_id = query.client_id ?? null;
      const type = query.type ?? null;
      const since = query.since ?? null;
      const until = query.until ?? null;
      const before_at = query.before?.at ?? null;
      const before_id = query.before?.id ?? null;
      const rows: unknown[] = await sql`
        SELECT * FROM audit_events
        WHERE (${user_id}::text IS NULL OR user_id = ${user_id}) AND (${client_id}::text IS NULL OR client_id = ${client_id})
          AND (${type}::text IS NULL OR type = ${type}) AND (${since}::bigint IS NULL OR at >= ${since})
          AND (${until}::bigint IS NULL OR at <= ${until})
          AND (${before_at}::bigint IS NULL OR at < ${before_at} OR (at = ${before_at} AND id < ${before_id}::bigint))
        ORDER BY at DESC, id DESC LIMIT ${query.limit ?? DEFAULT_AUDIT_LIMIT}`;
      return rows.map((raw) => decode(audit_spec, raw));
    },
    async purge_audit_events(before, batch_size = DEFAULT_PURGE_BATCH) {
      let total = 0;
      for (;;) {
        const result = await sql`
          DELETE FROM audit_events WHERE id = ANY(ARRAY(SELECT id FROM audit_events WHERE at < ${before} LIMIT ${batch_size}))`;
        total += result.count;
        if (result.count < batch_size) return total;
      }
    },
  };
}
