/**
 * PostgreSQL: the mail outbox. Workers of several instances claim with FOR UPDATE SKIP LOCKED:
 * concurrent claims take different rows instead of waiting, and never the same row twice.
 */
import type { PgSql } from "./driver.ts";
import { columns, decode, decode_or_null, encode_postgres } from "../codec.ts";
import { DEFAULT_MAIL_LIST_LIMIT } from "../default_limits.ts";
import { mail_row, mail_spec, mail_summary_spec } from "../rows/mail.ts";
import { MAIL_STATUSES, type MailRow, type MailStatus, type MailStore } from "../types.ts";

const SUMMARY_COLUMNS = columns(mail_summary_spec).join(", ");

export function pg_mail(sql: PgSql): MailStore {
  return {
    async enqueue_mail(input) {
      const row = mail_row(input);
      await sql`INSERT INTO mail_outbox ${sql(encode_postgres(mail_spec, row))}`;
      return row;
    },
    async claim_mail(now, options) {
      const id = options.id ?? null;
      const rows: unknown[] = await sql`
        UPDATE mail_outbox SET status = 'sending', attempts = attempts + 1, locked_until = ${now + options.lease_seconds}
        WHERE id = ANY(ARRAY(
          SELECT id FROM mail_outbox
          WHERE ((status = 'queued' AND next_attempt_at <= ${now}) OR (status = 'sending' AND locked_until <= ${now}))
            AND (${id}::text IS NULL OR id = ${id})
          ORDER BY next_attempt_at, created_at LIMIT ${options.limit ?? 10}
          FOR UPDATE SKIP LOCKED))
        RETURNING *`;
      return rows.map((raw) => decode(mail_spec, raw)).sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.created_at - b.created_at);
    },
    async mark_mail_sent(id, attempt, now) {
      const result = await sql`
        UPDATE mail_outbox SET status = 'sent', sent_at = ${now}, locked_until = NULL, last_error = NULL
        WHERE id = ${id} AND status = 'sending' AND attempts = ${attempt}`;
      return result.count === 1;
    },
    async mark_mail_failed(id, attempt, failure) {
      const status: MailStatus = failure.retry_at === null ? "failed" : "queued";
      const result = await sql`
        UPDATE mail_outbox SET status = ${status}, next_attempt_at = coalesce(${failure.retry_at}::bigint, next_attempt_at),
          locked_until = NULL, last_error = ${failure.error}
        WHERE id = ${id} AND status = 'sending' AND attempts = ${attempt}`;
      return result.count === 1;
    },
    async retry_mail(id, now, give_up_at) {
      const result = await sql`
        UPDATE mail_outbox SET status = 'queued', next_attempt_at = ${now}, give_up_at = ${give_up_at}, attempts = 0, last_error = NULL
        WHERE id = ${id} AND status = 'failed'`;
      return result.count === 1;
    },
    async get_mail(id) {
      const [raw] = await sql`SELECT * FROM mail_outbox WHERE id = ${id}`;
      return decode_or_null<MailRow>(mail_spec, raw);
    },
    async list_mail(query = {}) {
      const status = query.status ?? null;
      const rows: unknown[] = await sql.unsafe(`SELECT ${SUMMARY_COLUMNS} FROM mail_outbox WHERE ($1::text IS NULL OR status = $1) ORDER BY created_at DESC, id DESC LIMIT $2`, [
        status,
        query.limit ?? DEFAULT_MAIL_LIST_LIMIT,
      ]);
      return rows.map((raw) => decode(mail_summary_spec, raw));
    },
    async count_mail() {
      const counts = Object.fromEntries(MAIL_STATUSES.map((s) => [s, 0])) as Record<MailStatus, number>;
      const rows: { status: MailStatus; n: unknown }[] = await sql`SELECT status, count(*) AS n FROM mail_outbox GROUP BY status`;
      for (const row of rows) counts[row.status] = Number(row.n);
      return counts;
    },
    async mail_queue() {
      const [row]: { waiting: unknown; next_due: unknown }[] = await sql.unsafe(
        "SELECT count(*) AS waiting, min(CASE WHEN status = 'queued' THEN next_attempt_at ELSE locked_until END) AS next_due FROM mail_outbox WHERE status IN ('queued', 'sending')",
      );
      return { waiting: Number(row!.waiting), next_due: row!.next_due === null ? null : Number(row!.next_due) };
    },
  };
}
