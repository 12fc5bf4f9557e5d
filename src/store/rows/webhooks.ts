/** Rows of `webhooks` and `webhook_deliveries`: column specs and the builders of new rows, shared by both adapters. */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { NewWebhook, NewWebhookDelivery, WebhookDeliveryRow, WebhookRow } from "../types.ts";

export const webhook_spec: TableSpec<WebhookRow> = {
  id: "text",
  url: "text",
  events: "json",
  secret_sealed: "text",
  description: "text",
  created_at: "int",
};

export const webhook_delivery_spec: TableSpec<WebhookDeliveryRow> = {
  id: "text",
  webhook_id: "text",
  event_type: "text",
  payload: "text",
  status: "text",
  attempts: "int",
  next_attempt_at: "int",
  locked_until: "int",
  give_up_at: "int",
  last_error: "text",
  created_at: "int",
  sent_at: "int",
};

export function webhook_row(input: NewWebhook): WebhookRow {
  return {
    id: input.id,
    url: input.url,
    events: [...input.events],
    secret_sealed: input.secret_sealed,
    description: input.description ?? null,
    created_at: input.created_at ?? now_seconds(),
  };
}

export function webhook_delivery_row(input: NewWebhookDelivery): WebhookDeliveryRow {
  const created_at = input.created_at ?? now_seconds();
  return {
    id: input.id,
    webhook_id: input.webhook_id,
    event_type: input.event_type,
    payload: input.payload,
    status: "queued",
    attempts: 0,
    next_attempt_at: input.next_attempt_at ?? created_at,
    locked_until: null,
    give_up_at: input.give_up_at,
    last_error: null,
    created_at,
    sent_at: null,
  };
}
