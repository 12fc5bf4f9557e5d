/** SQLite: the mail outbox; its claim and outcomes are those of every outbox table (outbox.ts). */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { columns, decode, decode_or_null, encode_sqlite } from "../codec.ts";
import { DEFAULT_MAIL_LIST_LIMIT } from "../default_limits.ts";
import { mail_row, mail_spec, mail_summary_spec } from "../rows/mail.ts";
import { MAIL_STATUSES, type MailRow, type MailStatus, type MailStore } from "../types.ts";
import { sqlite_outbox } from "./outbox.ts";
import { insert_sql } from "./sql.ts";

const SUMMARY_COLUMNS = columns(mail_summary_spec).join(", ");

export function sqlite_mail(db: SqliteDatabase): Sync<MailStore> {
  const insert = db.prepare(insert_sql("mail_outbox", columns(mail_spec)));
  const outbox = sqlite_outbox(db, "mail_outbox", mail_spec);
  const by_id = db.prepare("SELECT * FROM mail_outbox WHERE id = $id");
  const list = db.prepare(
    `SELECT ${SUMMARY_COLUMNS} FROM mail_outbox WHERE ($status IS NULL OR status = $status)
     ORDER BY created_at DESC, id DESC LIMIT $limit`,
  );
  const count = db.prepare("SELECT status, count(*) AS n FROM mail_outbox GROUP BY status");

  return {
    enqueue_mail(input) {
      const row = mail_row(input);
      insert.run(encode_sqlite(mail_spec, row));
      return row;
    },
    claim_mail: outbox.claim,
    mark_mail_sent: outbox.mark_sent,
    mark_mail_failed: outbox.mark_failed,
    retry_mail: outbox.retry,
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
    mail_queue: outbox.queue,
  };
}
