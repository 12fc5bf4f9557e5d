/** SQLite: webhook subscriptions and their deliveries (an outbox table: outbox.ts). */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { columns, decode, decode_or_null, encode_sqlite } from "../codec.ts";
import { DEFAULT_MAIL_LIST_LIMIT } from "../default_limits.ts";
import { webhook_delivery_row, webhook_delivery_spec, webhook_row, webhook_spec } from "../rows/webhooks.ts";
import type { WebhookDeliveryRow, WebhookRow, WebhookStore } from "../types.ts";
import { sqlite_outbox } from "./outbox.ts";
import { insert_sql } from "./sql.ts";

export function sqlite_webhooks(db: SqliteDatabase): Sync<WebhookStore> {
  const insert = db.prepare(insert_sql("webhooks", columns(webhook_spec)));
  const by_id = db.prepare("SELECT * FROM webhooks WHERE id = $id");
  const all = db.prepare("SELECT * FROM webhooks ORDER BY created_at, id");
  const remove = db.prepare("DELETE FROM webhooks WHERE id = $id");
  const insert_delivery = db.prepare(insert_sql("webhook_deliveries", columns(webhook_delivery_spec)));
  const delivery_by_id = db.prepare("SELECT * FROM webhook_deliveries WHERE id = $id");
  const list = db.prepare(
    `SELECT * FROM webhook_deliveries WHERE ($webhook_id IS NULL OR webhook_id = $webhook_id) AND ($status IS NULL OR status = $status)
     ORDER BY created_at DESC, id DESC LIMIT $limit`,
  );
  const outbox = sqlite_outbox(db, "webhook_deliveries", webhook_delivery_spec);

  return {
    add_webhook(input) {
      const row = webhook_row(input);
      insert.run(encode_sqlite(webhook_spec, row));
      return row;
    },
    get_webhook(id) {
      return decode_or_null<WebhookRow>(webhook_spec, by_id.get({ id }));
    },
    list_webhooks() {
      return all.all().map((raw) => decode(webhook_spec, raw));
    },
    delete_webhook(id) {
      return remove.run({ id }).changes === 1;
    },
    enqueue_webhook_deliveries(deliveries) {
      const rows = deliveries.map(webhook_delivery_row);
      for (const row of rows) insert_delivery.run(encode_sqlite(webhook_delivery_spec, row));
      return rows;
    },
    claim_webhook_deliveries: outbox.claim,
    mark_webhook_delivery_sent: outbox.mark_sent,
    mark_webhook_delivery_failed: outbox.mark_failed,
    retry_webhook_delivery: outbox.retry,
    get_webhook_delivery(id) {
      return decode_or_null<WebhookDeliveryRow>(webhook_delivery_spec, delivery_by_id.get({ id }));
    },
    list_webhook_deliveries(query = {}) {
      const rows = list.all({ webhook_id: query.webhook_id ?? null, status: query.status ?? null, limit: query.limit ?? DEFAULT_MAIL_LIST_LIMIT });
      return rows.map((raw) => decode(webhook_delivery_spec, raw));
    },
    webhook_queue: outbox.queue,
  };
}
