/**
 * SQLite: the claim, outcome and idle check of an outbox table (`mail_outbox`, `webhook_deliveries`),
 * whose rows share the columns status, attempts, next_attempt_at, locked_until, give_up_at,
 * last_error, created_at and sent_at (types/mail.ts says what each means). One writer connection,
 * so a claim (one UPDATE … RETURNING) is atomic.
 */
import type { SqliteDatabase } from "./driver.ts";
import { decode, type TableSpec } from "../codec.ts";
import type { MailClaim, MailFailure, MailQueue, MailStatus, UnixSeconds } from "../types.ts";

type Due = { next_attempt_at: number; created_at: number };

export type OutboxStatements<Row> = {
  claim(now: UnixSeconds, options: MailClaim): Row[];
  mark_sent(id: string, attempt: number, now: UnixSeconds): boolean;
  mark_failed(id: string, attempt: number, failure: MailFailure): boolean;
  retry(id: string, now: UnixSeconds, give_up_at: UnixSeconds): boolean;
  queue(): MailQueue;
};

/** `table` is one of ours, never input. */
export function sqlite_outbox<Row extends Due>(db: SqliteDatabase, table: string, spec: TableSpec<Row>): OutboxStatements<Row> {
  // Due: queued and its time has come, or claimed by a worker whose lease lapsed (it died).
  const claim = db.prepare(
    `UPDATE ${table} SET status = 'sending', attempts = attempts + 1, locked_until = $now + $lease
     WHERE id IN (
       SELECT id FROM ${table}
       WHERE ((status = 'queued' AND next_attempt_at <= $now) OR (status = 'sending' AND locked_until <= $now))
         AND ($id IS NULL OR id = $id)
       ORDER BY next_attempt_at, created_at LIMIT $limit)
     RETURNING *`,
  );
  const sent = db.prepare(
    `UPDATE ${table} SET status = 'sent', sent_at = $now, locked_until = NULL, last_error = NULL
     WHERE id = $id AND status = 'sending' AND attempts = $attempt`,
  );
  const failed = db.prepare(
    `UPDATE ${table} SET status = $status, next_attempt_at = coalesce($retry_at, next_attempt_at), locked_until = NULL, last_error = $error
     WHERE id = $id AND status = 'sending' AND attempts = $attempt`,
  );
  const retry = db.prepare(
    `UPDATE ${table} SET status = 'queued', next_attempt_at = $now, give_up_at = $give_up_at, attempts = 0, last_error = NULL
     WHERE id = $id AND status = 'failed'`,
  );
  const queue = db.prepare(
    `SELECT count(*) AS waiting, min(CASE WHEN status = 'queued' THEN next_attempt_at ELSE locked_until END) AS next_due FROM ${table} WHERE status IN ('queued', 'sending')`,
  );
  return {
    claim(now, options) {
      const rows = claim.all({ now, lease: options.lease_seconds, id: options.id ?? null, limit: options.limit ?? 10 });
      return rows.map((raw) => decode(spec, raw)).sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.created_at - b.created_at);
    },
    mark_sent(id, attempt, now) {
      return sent.run({ id, attempt, now }).changes === 1;
    },
    mark_failed(id, attempt, failure) {
      const status: MailStatus = failure.retry_at === null ? "failed" : "queued";
      return failed.run({ id, attempt, status, retry_at: failure.retry_at, error: failure.error }).changes === 1;
    },
    retry(id, now, give_up_at) {
      return retry.run({ id, now, give_up_at }).changes === 1;
    },
    queue() {
      const row = queue.get() as { waiting: number; next_due: number | null };
      return { waiting: row.waiting, next_due: row.next_due };
    },
  };
}
