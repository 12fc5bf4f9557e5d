/** PostgreSQL: client-assertion replay protection, rate-limit counters and audit events. */
import type { SQL } from "bun";
import { auditSpec, decode } from "../codec.ts";
import { auditRow, DEFAULT_AUDIT_LIMIT, DEFAULT_PURGE_BATCH, nowSeconds } from "../defaults.ts";
import type { AuditStore, CounterStore, ReplayStore } from "../types.ts";

export function pgReplay(sql: SQL): ReplayStore {
  return {
    async useJti(clientId, jti, expiresAt, now) {
      // A concurrent insert of the same key waits for the first to commit, then takes the
      // conflict branch, whose WHERE fails while that use is live: it returns no row.
      const rows: unknown[] = await sql`
        INSERT INTO used_jtis (client_id, jti, expires_at) VALUES (${clientId}, ${jti}, ${expiresAt})
        ON CONFLICT (client_id, jti) DO UPDATE SET expires_at = EXCLUDED.expires_at
          WHERE used_jtis.expires_at <= ${now ?? nowSeconds()}
        RETURNING 1 AS used`;
      return rows.length > 0;
    },
  };
}

export function pgCounters(sql: SQL): CounterStore {
  const state = (raw: { count: unknown; reset_at: unknown }) => ({ count: Number(raw.count), reset_at: Number(raw.reset_at) });
  return {
    async hit(key, windowSeconds, now) {
      const [raw] = await sql`
        INSERT INTO counters (key, count, reset_at) VALUES (${key}, 1, ${now + windowSeconds})
        ON CONFLICT (key) DO UPDATE SET
          count = CASE WHEN counters.reset_at <= ${now} THEN 1 ELSE counters.count + 1 END,
          reset_at = CASE WHEN counters.reset_at <= ${now} THEN EXCLUDED.reset_at ELSE counters.reset_at END
        RETURNING count, reset_at`;
      return state(raw);
    },
    async getCounter(key) {
      const [raw] = await sql`SELECT count, reset_at FROM counters WHERE key = ${key}`;
      return raw ? state(raw) : null;
    },
    async resetCounter(key) {
      await sql`DELETE FROM counters WHERE key = ${key}`;
    },
  };
}

export function pgAudit(sql: SQL): AuditStore {
  return {
    async addAuditEvent(input) {
      const row = auditRow(input);
      const [raw] = await sql`INSERT INTO audit_events ${sql(row)} RETURNING id`;
      return { id: Number(raw.id), ...row };
    },
    async listAuditEvents(query = {}) {
      const userId = query.userId ?? null;
      const clientId = query.clientId ?? null;
      const type = query.type ?? null;
      const since = query.since ?? null;
      const rows: unknown[] = await sql`
        SELECT * FROM audit_events
        WHERE (${userId}::text IS NULL OR user_id = ${userId}) AND (${clientId}::text IS NULL OR client_id = ${clientId})
          AND (${type}::text IS NULL OR type = ${type}) AND (${since}::bigint IS NULL OR at >= ${since})
        ORDER BY at DESC, id DESC LIMIT ${query.limit ?? DEFAULT_AUDIT_LIMIT}`;
      return rows.map((raw) => decode(auditSpec, raw));
    },
    async purgeAuditEvents(before, batchSize = DEFAULT_PURGE_BATCH) {
      let total = 0;
      for (;;) {
        const result = await sql`
          DELETE FROM audit_events WHERE id = ANY(ARRAY(SELECT id FROM audit_events WHERE at < ${before} LIMIT ${batchSize}))`;
        total += result.count;
        if (result.count < batchSize) return total;
      }
    },
  };
}
