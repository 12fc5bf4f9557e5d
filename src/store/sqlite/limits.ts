/** SQLite: client-assertion replay protection, rate-limit counters and audit events. */
import type { Database } from "bun:sqlite";
import type { Sync } from "./group-commit.ts";
import { auditSpec, decode } from "../codec.ts";
import { auditRow, DEFAULT_AUDIT_LIMIT, DEFAULT_PURGE_BATCH, nowSeconds } from "../defaults.ts";
import type { AuditStore, CounterState, CounterStore, ReplayStore } from "../types.ts";

export function sqliteReplay(db: Database): Sync<ReplayStore> {
  // Inserts, or takes over a row whose previous use has expired; a live row makes it return nothing.
  const use = db.prepare(
    `INSERT INTO used_jtis (client_id, jti, expires_at) VALUES ($client_id, $jti, $expires_at)
     ON CONFLICT (client_id, jti) DO UPDATE SET expires_at = excluded.expires_at WHERE used_jtis.expires_at <= $now
     RETURNING 1 AS used`,
  );
  return {
    useJti(clientId, jti, expiresAt, now) {
      return use.get({ client_id: clientId, jti, expires_at: expiresAt, now: now ?? nowSeconds() }) !== null;
    },
  };
}

export function sqliteCounters(db: Database): Sync<CounterStore> {
  const hit = db.prepare(
    `INSERT INTO counters (key, count, reset_at) VALUES ($key, 1, $now + $window)
     ON CONFLICT (key) DO UPDATE SET
       count = CASE WHEN counters.reset_at <= $now THEN 1 ELSE counters.count + 1 END,
       reset_at = CASE WHEN counters.reset_at <= $now THEN $now + $window ELSE counters.reset_at END
     RETURNING count, reset_at`,
  );
  const get = db.prepare("SELECT count, reset_at FROM counters WHERE key = $key");
  const reset = db.prepare("DELETE FROM counters WHERE key = $key");
  return {
    hit(key, windowSeconds, now) {
      return hit.get({ key, now, window: windowSeconds }) as CounterState;
    },
    getCounter(key) {
      return (get.get({ key }) as CounterState | null) ?? null;
    },
    resetCounter(key) {
      reset.run({ key });
    },
  };
}

export function sqliteAudit(db: Database): Sync<AuditStore> {
  const insert = db.prepare(
    `INSERT INTO audit_events (at, type, user_id, client_id, ip, outcome, details)
     VALUES ($at, $type, $user_id, $client_id, $ip, $outcome, $details) RETURNING id`,
  );
  const list = db.prepare(
    `SELECT * FROM audit_events
     WHERE ($user_id IS NULL OR user_id = $user_id) AND ($client_id IS NULL OR client_id = $client_id)
       AND ($type IS NULL OR type = $type) AND ($since IS NULL OR at >= $since)
     ORDER BY at DESC, id DESC LIMIT $limit`,
  );
  const purge = db.prepare("DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE at < $before LIMIT $limit)");
  return {
    addAuditEvent(input) {
      const row = auditRow(input);
      const bound = { ...row, details: row.details === null ? null : JSON.stringify(row.details) };
      const { id } = insert.get(bound) as { id: number };
      return { id, ...row };
    },
    listAuditEvents(query = {}) {
      const rows = list.all({
        user_id: query.userId ?? null,
        client_id: query.clientId ?? null,
        type: query.type ?? null,
        since: query.since ?? null,
        limit: query.limit ?? DEFAULT_AUDIT_LIMIT,
      });
      return rows.map((raw) => decode(auditSpec, raw));
    },
    purgeAuditEvents(before, batchSize = DEFAULT_PURGE_BATCH) {
      let total = 0;
      for (;;) {
        const deleted = purge.run({ before, limit: batchSize }).changes;
        total += deleted;
        if (deleted < batchSize) return total;
      }
    },
  };
}
