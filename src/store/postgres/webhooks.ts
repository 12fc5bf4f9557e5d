/** PostgreSQL: webhook subscriptions and their deliveries (an outbox table: outbox.ts). */
import type { PgSql } from "./driver.ts";
import { decode, decode_or_null, encode_postgres } from "../codec.ts";
import { DEFAULT_MAIL_LIST_LIMIT } from "../default_limits.ts";
import { webhook_delivery_row, webhook_delivery_spec, webhook_row, webhook_spec } from "../rows/webhooks.ts";
import type { WebhookDeliveryRow, WebhookRow, WebhookStore } from "../types.ts";
import { pg_outbox } from "./outbox.ts";

export function pg_webhooks(sql: PgSql): WebhookStore {
  const outbox = pg_outbox(sql, "webhook_deliveries", webhook_delivery_spec);
  return {
    async add_webhook(input) {
      const row = webhook_row(input);
      await sql`INSERT INTO webhooks ${sql(encode_postgres(webhook_spec, row))}`;
      return row;
    },
    async get_webhook(id) {
      const [raw] = await sql`SELECT * FROM webhooks WHERE id = ${id}`;
      return decode_or_null<WebhookRow>(webhook_spec, raw);
    },
    async list_webhooks() {
      const rows: unknown[] = await sql`SELECT * FROM webhooks ORDER BY created_at, id`;
      return rows.map((raw) => decode(webhook_spec, raw));
    },
    async delete_webhook(id) {
      return (await sql`DELETE FROM webhooks WHERE id = ${id}`).count === 1;
    },
    async enqueue_webhook_deliveries(deliveries) {
      const rows = deliveries.map(webhook_delivery_row);
      if (rows.length === 0) return [];
      await sql.begin(async (tx) => {
        for (const row of rows) await tx`INSERT INTO webhook_deliveries ${tx(encode_postgres(webhook_delivery_spec, row))}`;
      });
      return rows;
    },
    claim_webhook_deliveries: outbox.claim,
    mark_webhook_delivery_sent: outbox.mark_sent,
    mark_webhook_delivery_failed: outbox.mark_failed,
    retry_webhook_delivery: outbox.retry,
    async get_webhook_delivery(id) {
      const [raw] = await sql`SELECT * FROM webhook_deliveries WHERE id = ${id}`;
      return decode_or_null<WebhookDeliveryRow>(webhook_delivery_spec, raw);
    },
    async list_webhook_deliveries(query = {}) {
      const rows: unknown[] = await sql.unsafe(
        `SELECT * FROM webhook_deliveries WHERE ($1::text IS NULL OR webhook_id = $1) AND ($2::text IS NULL OR status = $2)
         ORDER BY created_at DESC, id DESC LIMIT $3`,
        [query.webhook_id ?? null, query.status ?? null, query.limit ?? DEFAULT_MAIL_LIST_LIMIT],
      );
      return rows.map((raw) => decode(webhook_delivery_spec, raw));
    },
    webhook_queue: outbox.queue,
  };
}
