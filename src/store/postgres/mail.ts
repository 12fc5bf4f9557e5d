/** PostgreSQL: the mail outbox; its claim and outcomes are those of every outbox table (outbox.ts). */
import type { PgSql } from "./driver.ts";
import { columns, decode, decode_or_null, encode_postgres } from "../codec.ts";
import { DEFAULT_MAIL_LIST_LIMIT } from "../default_limits.ts";
import { mail_row, mail_spec, mail_summary_spec } from "../rows/mail.ts";
import { pg_outbox } from "./outbox.ts";
import { MAIL_STATUSES, type MailRow, type MailStatus, type MailStore } from "../types.ts";

const SUMMARY_COLUMNS = columns(mail_summary_spec).join(", ");

export function pg_mail(sql: PgSql): MailStore {
  const outbox = pg_outbox(sql, "mail_outbox", mail_spec);
  return {
    async enqueue_mail(input) {
      const row = mail_row(input);
      await sql`INSERT INTO mail_outbox ${sql(encode_postgres(mail_spec, row))}`;
      return row;
    },
    claim_mail: outbox.claim,
    mark_mail_sent: outbox.mark_sent,
    mark_mail_failed: outbox.mark_failed,
    retry_mail: outbox.retry,
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
    mail_queue: outbox.queue,
  };
}
