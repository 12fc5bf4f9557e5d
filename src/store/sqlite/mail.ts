/** SQLite: the mail outbox. One writer connection, so a claim (one UPDATE … RETURNING) is atomic. */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { columns, decode, decode_or_null, encode_sqlite } from "../codec.ts";
import { DEFAULT_MAIL_LIST_LIMIT } from "../default_limits.ts";
import { mail_row, mail_spec, mail_summary_spec } from "../rows/mail.ts";
import { MAIL_STATUSES, type MailRow, type MailStatus, type MailStore } from "../types.ts";
import { insert_sql } from "./sql.ts";

const SUMMARY_COLUMNS = columns(mail_summary_spec).join(", ");

export function sqlite_mail(db: SqliteDatabase): Sync<MailStore> {
  const insert = db.prepare(insert_sql("mail_outbox", columns(mail_spec)));
  // Due: queued and its time has come, or claimed by a worker whose lease lapsed (it died).
  const claim = db.prepare(
    `UPDATE mail_outbox SET status = 'sending', attempts = attempts + 1, locked_until = $now + $lease
     WHERE id IN (
       SELECT id FROM mail_outbox
       WHERE ((status = 'queued' AND next_attempt_at <= $now) OR (status = 'sending' AND locked_until <= $now))
         AND ($id IS NULL OR id = $id)
       ORDER BY next_attempt_at, created_at LIMIT $limit)
     RETURNING *`,
  );
  const sent = db.prepare(
    `UPDATE mail_outbox SET status = 'sent', sent_at = $now, locked_until = NULL, last_error = NULL
     WHERE id = $id AND status = 'sending' AND attempts = $attempt`,
  );
  const failed = db.prepare(
    `UPDATE mail_outbox SET status = $status, next_attempt_at = coalesce($retry_at, next_attempt_at), locked_until = NULL, last_error = $error
     WHERE id = $id AND status = 'sending' AND attempts = $attempt`,
  );
  const retry = db.prepare(
    `UPDATE mail_outbox SET status = 'queued', next_attempt_at = $now, give_up_at = $give_up_at, attempts = 0, last_error = NULL
     WHERE id = $id AND status = 'failed'`,
  );
  const by_id = db.prepare("SELECT * FROM mail_outbox WHERE id = $id");
  const list = db.prepare(
    `SELECT ${SUMMARY_COLUMNS} FROM mail_outbox WHERE ($status IS NULL OR status = $status)
     ORDER BY created_at DESC, id DESC LIMIT $limit`,
  );
  const count = db.prepare("SELECT status, count(*) AS n FROM mail_outbox GROUP BY status");
  const queue = db.prepare(
    "SELECT count(*) AS waiting, min(CASE WHEN status = 'queued' THEN next_attempt_at ELSE locked_until END) AS next_due FROM mail_outbox WHERE status IN ('queued', 'sending')",
  );

  return {
    enqueue_mail(input) {
      const row = mail_row(input);
      insert.run(encode_sqlite(mail_spec, row));
      return row;
    },
    claim_mail(now, options) {
      const rows = claim.all({ now, lease: options.lease_seconds, id: options.id ?? null, limit: options.limit ?? 10 });
      return rows.map((raw) => decode(mail_spec, raw)).sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.created_at - b.created_at);
    },
    mark_mail_sent(id, attempt, now) {
      return sent.run({ id, attempt, now }).changes === 1;
    },
    mark_mail_failed(id, attempt, failure) {
      const status: MailStatus = failure.retry_at === null ? "failed" : "queued";
      return failed.run({ id, attempt, status, retry_at: failure.retry_at, error: failure.error }).changes === 1;
    },
    retry_mail(id, now, give_up_at) {
      return retry.run({ id, now, give_up_at }).changes === 1;
    },
    get_mail(id) {
      return decode_or_null<MailRow>(mail_spec, by_id.get({ id }));
    },
    list_mail(query = {}) {
      return list.all({ status: query.status ?? null, limit: query.limit ?? DEFAULT_MAIL_LIST_LIMIT }).map((raw) => decode(mail_summary_spec, raw));
    },
    count_mail() {
      const counts = Object.fromEntries(MAIL_STATUSES.map((s) => [s, 0])) as Record<MailStatus, number>;
      for (const row of count.all() as { status: MailStatus; n: number }[]) counts[row.status] = row.n;
      return counts;
    },
    mail_queue() {
      const row = queue.get() as { waiting: number; next_due: number | null };
      return { waiting: row.waiting, next_due: row.next_due };
    },
  };
}
