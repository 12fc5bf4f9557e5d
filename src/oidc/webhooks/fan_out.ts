/**
 * From an audit event to webhook deliveries: each subscription whose patterns match one of the
 * event's webhook types (events.ts) gets one delivery queued in the outbox, which the workers
 * deliver (app/webhooks/worker.ts). Called right after the event is recorded (oidc/audit.ts, the
 * CLI's audit): one read of the subscriptions, and one write only when some match.
 */
import { uuid_v7 } from "../../platform/crypto.ts";
import type { AuditEvent, JsonObject, NewWebhookDelivery, Store, UnixSeconds, WebhookRow } from "../../store/types.ts";
import { subscribed, webhook_types_of } from "./events.ts";

/** After this long without a successful attempt a delivery ends `failed` (`idp webhooks retry` queues it again). */
export const WEBHOOK_GIVE_UP_SECONDS = 24 * 3600;

/**
 * The body of a delivery (Standard Webhooks: `type`, `timestamp`, `data`). `data` is the audit
 * event's facts: ids, names, outcome, address and details, which never hold a secret, a password,
 * a code, a token or a hash (oidc/audit.ts).
 */
export function webhook_payload(type: string, at: UnixSeconds, data: JsonObject): string {
  return JSON.stringify({ type, timestamp: new Date(at * 1000).toISOString(), data });
}

export function audit_event_data(event: AuditEvent): JsonObject {
  return {
    audit_event_id: event.id,
    audit_type: event.type,
    outcome: event.outcome,
    user_id: event.user_id,
    client_id: event.client_id,
    ip: event.ip,
    details: event.details,
  };
}

/** A delivery of `type` to `webhook`, due now. */
export function new_delivery(webhook: WebhookRow, type: string, now: UnixSeconds, data: JsonObject): NewWebhookDelivery {
  return {
    id: `msg_${uuid_v7().replaceAll("-", "")}`,
    webhook_id: webhook.id,
    event_type: type,
    payload: webhook_payload(type, now, data),
    created_at: now,
    next_attempt_at: now,
    give_up_at: now + WEBHOOK_GIVE_UP_SECONDS,
  };
}

/** Queues the deliveries an audit event causes; resolves to how many. */
export async function fan_out(store: Pick<Store, "list_webhooks" | "enqueue_webhook_deliveries">, event: AuditEvent, now: UnixSeconds): Promise<number> {
  const types = webhook_types_of(event);
  if (types.length === 0) return 0;
  const webhooks = await store.list_webhooks();
  const deliveries = types.flatMap((type) =>
    webhooks.filter((webhook) => subscribed(webhook.events, type)).map((webhook) => new_delivery(webhook, type, now, audit_event_data(event))),
  );
  if (deliveries.length > 0) await store.enqueue_webhook_deliveries(deliveries);
  return deliveries.length;
}
