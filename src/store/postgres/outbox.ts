/**
 * PostgreSQL: the claim, outcome and idle check of an outbox table (`mail_outbox`,
 * `webhook_deliveries`; types/mail.ts says what the shared columns mean). Workers of several
 * instances claim with FOR UPDATE SKIP LOCKED: concurrent claims take different rows instead of
 * waiting, and never the same row twice.
 */
import type { PgSql } from "./driver.ts";
import { decode, type TableSpec } from "../codec.ts";
import type { MailClaim, MailFailure, MailQueue, MailStatus, UnixSeconds } from "../types.ts";

type Due = { next_attempt_at: number; created_at: number };

export type PgOutbox<Row> = {
  claim(now: UnixSeconds, options: MailClaim): Promise<Row[]>;
  mark_sent(id: string, attempt: number, now: UnixSeconds): Promise<boolean>;
  mark_failed(id: string, attempt: number, failure: MailFailure): Promise<boolean>;
  retry(id: string, now: UnixSeconds, give_up_at: UnixSeconds): Promise<boolean>;
  queue(): Promise<MailQueue>;
};

/** `table` is one of ours, never input. */
export function pg_outbox<Row extends Due>(sql: PgSql, table: string, spec: TableSpec<Row>): PgOutbox<Row> {
  const changed = async (text: string, params: unknown[]) => (await sql.unsafe(text, params)).count === 1;
  return {
    async claim(now, options) {
      const rows: unknown[] = await sql.unsafe(
        `UPDATE ${table} SET status = 'sending', attempts = attempts + 1, locked_until = $2
         WHERE id = ANY(ARRAY(
           SELECT id FROM ${table}
           WHERE ((status = 'queued' AND next_attempt_at <= $1) OR (status = 'sending' AND locked_until <= $1))
             AND ($3::text IS NULL OR id = $3)
           ORDER BY next_attempt_at, created_at LIMIT $4
           FOR UPDATE SKIP LOCKED))
         RETURNING *`,
        [now, now + options.lease_seconds, options.id ?? null, options.limit ?? 10],
      );
      return rows.map((raw) => decode(spec, raw)).sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.created_at - b.created_at);
    },
    mark_sent(id, attempt, now) {
      return changed(
        `UPDATE ${table} SET status = 'sent', sent_at = $3, locked_until = NULL, last_error = NULL
         WHERE id = $1 AND status = 'sending' AND attempts = $2`,
        [id, attempt, now],
      );
    },
    mark_failed(id, attempt, failure) {
      const status: MailStatus = failure.retry_at === null ? "failed" : "queued";
      return changed(
        `UPDATE ${table} SET status = $3, next_attempt_at = coalesce($4::bigint, next_attempt_at), locked_until = NULL, last_error = $5
         WHERE id = $1 AND status = 'sending' AND attempts = $2`,
        [id, attempt, status, failure.retry_at, failure.error],
      );
    },
    retry(id, now, give_up_at) {
      return changed(
        `UPDATE ${table} SET status = 'queued', next_attempt_at = $2, give_up_at = $3, attempts = 0, last_error = NULL
         WHERE id = $1 AND status = 'failed'`,
        [id, now, give_up_at],
      );
    },
    async queue() {
      const [row]: { waiting: unknown; next_due: unknown }[] = await sql.unsafe(
        `SELECT count(*) AS waiting, min(CASE WHEN status = 'queued' THEN next_attempt_at ELSE locked_until END) AS next_due FROM ${table} WHERE status IN ('queued', 'sending')`,
      );
      return { waiting: Number(row!.waiting), next_due: row!.next_due === null ? null : Number(row!.next_due) };
    },
  };
}
