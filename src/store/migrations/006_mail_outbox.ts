/**
 * Version 6: the mail outbox. `idp.mail.send()` renders a message and inserts it here; workers on
 * every instance claim due rows (a lease: `locked_until`), deliver them and mark the outcome, so
 * a request never waits for SMTP and a message survives an SMTP outage or a restart. Sent rows
 * are purged after some days (store/purge.ts).
 */
import type { Migration } from "./migration.ts";

function schema(int: string, strict: string): string {
  return `
CREATE TABLE mail_outbox (
  id TEXT PRIMARY KEY,
  recipient TEXT NOT NULL,
  template TEXT NOT NULL,
  subject TEXT NOT NULL,
  text TEXT NOT NULL,
  html TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('queued', 'sending', 'sent', 'failed')),
  attempts ${int} NOT NULL DEFAULT 0,
  next_attempt_at ${int} NOT NULL,
  locked_until ${int},
  give_up_at ${int} NOT NULL,
  last_error TEXT,
  created_at ${int} NOT NULL,
  sent_at ${int}
)${strict};
CREATE INDEX mail_outbox_due ON mail_outbox (status, next_attempt_at);
CREATE INDEX mail_outbox_created_at ON mail_outbox (created_at);
`;
}

export const mail_outbox: Migration = {
  version: 6,
  name: "mail outbox",
  sqlite: schema("INTEGER", " STRICT"),
  postgres: schema("BIGINT", ""),
};
