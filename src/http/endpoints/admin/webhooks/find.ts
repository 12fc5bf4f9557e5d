/** The webhook and delivery a path names, or 404; and what a listing shows of a delivery. */
import { not_found } from "../../../../oidc/admin/errors.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import type { WebhookDeliveryRow, WebhookRow } from "../../../../store/types.ts";

export async function webhook_of(idp: Provider, id: string): Promise<WebhookRow> {
  const webhook = await idp.store.get_webhook(id);
  if (webhook === null) throw not_found("webhook", id);
  return webhook;
}

/** A delivery without its payload: its type, state and short reason. */
export function delivery_view(row: WebhookDeliveryRow) {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === "queued" ? row.next_attempt_at : null,
    last_error: row.last_error,
    created_at: row.created_at,
    sent_at: row.sent_at,
  };
}
