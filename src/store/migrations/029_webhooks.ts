/**
 * Version 29: webhooks. `webhooks` holds the operator's subscriptions (URL, event patterns, the
 * signing secret sealed under IDP_SECRET_KEY); `webhook_deliveries` is their outbox, with the
 * columns and claim of `mail_outbox` (006): workers on every instance claim due rows under a
 * lease, so each delivery is attempted by one of them at a time, and retried with backoff.
 *
 * 028 is taken by a change made at the same time as this one.
 */
import type { Migration } from "./migration.ts";

function schema(int: string, json: string, strict: string): string {
  return `
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  events ${json} NOT NULL,
  secret_sealed TEXT NOT NULL,
  description TEXT,
  created_at ${int} NOT NULL
)${strict};
CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_type TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('queued', 'sending', 'sent', 'failed')),
  attempts ${int} NOT NULL DEFAULT 0,
  next_attempt_at ${int} NOT NULL,
  locked_until ${int},
  give_up_at ${int} NOT NULL,
  last_error TEXT,
  created_at ${int} NOT NULL,
  sent_at ${int}
)${strict};
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, created_at);
CREATE INDEX webhook_deliveries_created_at ON webhook_deliveries (created_at);
`;
}

export const webhooks: Migration = {
  version: 29,
  name: "webhooks",
  sqlite: schema("INTEGER", "TEXT", " STRICT"),
  postgres: schema("BIGINT", "JSONB", ""),
};
