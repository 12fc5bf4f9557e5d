/**
 * Store types: webhooks. An operator subscribes a URL to event types (`idp webhooks add`); each
 * matching event queues one delivery per subscription in `webhook_deliveries`, which workers claim,
 * deliver and mark exactly as they do the mail outbox (types/mail.ts: the same statuses, lease and
 * fenced outcome). The rules every adapter keeps are in ../types.ts.
 */

import type { UnixSeconds } from "./common.ts";
import type { MailClaim, MailFailure, MailQueue, MailStatus } from "./mail.ts";

export type WebhookRow = {
  /** `wh_…`: names the subscription in the CLI, the admin API and the console. */
  id: string;
  /** Where deliveries are POSTed (https, or http where outbound.allow_http permits). */
  url: string;
  /** The event types and patterns subscribed to (`user.created`, `user.*`, `*`): oidc/webhooks/events.ts. */
  events: string[];
  /**
   * The signing secret sealed under IDP_SECRET_KEY (crypto/envelope.ts): it must be recovered to
   * sign (Standard Webhooks), so it cannot be hashed like the provider's own secrets.
   */
  secret_sealed: string;
  description: string | null;
  created_at: UnixSeconds;
};

export type NewWebhook = Pick<WebhookRow, "id" | "url" | "events" | "secret_sealed"> & Partial<Pick<WebhookRow, "description" | "created_at">>;

/** The outbox statuses (types/mail.ts): queued, sending (claimed), sent, failed. */
export type WebhookDeliveryStatus = MailStatus;

export type WebhookDeliveryRow = {
  /** `msg_…`: the `webhook-id` header, the same on every attempt (receivers deduplicate by it). */
  id: string;
  webhook_id: string;
  /** The webhook event type (`user.created`). */
  event_type: string;
  /** The JSON body, `{type, timestamp, data}`: ids and names, never a secret or a hash. */
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: UnixSeconds;
  locked_until: UnixSeconds | null;
  give_up_at: UnixSeconds;
  /** A short reason (`answered 503`, `connection refused`): never the receiver's body. */
  last_error: string | null;
  created_at: UnixSeconds;
  sent_at: UnixSeconds | null;
};

export type NewWebhookDelivery = Pick<WebhookDeliveryRow, "id" | "webhook_id" | "event_type" | "payload" | "give_up_at"> &
  Partial<Pick<WebhookDeliveryRow, "created_at" | "next_attempt_at">>;

export type WebhookDeliveryQuery = { webhook_id?: string; status?: WebhookDeliveryStatus; limit?: number };

export interface WebhookStore {
  /** Raises StoreConflictError when the id is taken. */
  add_webhook(webhook: NewWebhook): Promise<WebhookRow>;
  get_webhook(id: string): Promise<WebhookRow | null>;
  /** Oldest first. */
  list_webhooks(): Promise<WebhookRow[]>;
  /** Removes the subscription and its deliveries; false when there was none. */
  delete_webhook(id: string): Promise<boolean>;
  /** Queues deliveries (status queued, due at `next_attempt_at`, default now), in one write. */
  enqueue_webhook_deliveries(deliveries: readonly NewWebhookDelivery[]): Promise<WebhookDeliveryRow[]>;
  /** As claim_mail: due deliveries become `sending` until now + lease, attempts + 1; never one twice. */
  claim_webhook_deliveries(now: UnixSeconds, claim: MailClaim): Promise<WebhookDeliveryRow[]>;
  /** As mark_mail_sent: false when the claim (id and attempt) is no longer held. */
  mark_webhook_delivery_sent(id: string, attempt: number, now: UnixSeconds): Promise<boolean>;
  /** As mark_mail_failed. */
  mark_webhook_delivery_failed(id: string, attempt: number, failure: MailFailure): Promise<boolean>;
  /** A failed delivery back to the queue, due now, attempts reset; false unless it was failed. */
  retry_webhook_delivery(id: string, now: UnixSeconds, give_up_at: UnixSeconds): Promise<boolean>;
  get_webhook_delivery(id: string): Promise<WebhookDeliveryRow | null>;
  /** Newest first; `limit` defaults to 100. */
  list_webhook_deliveries(query?: WebhookDeliveryQuery): Promise<WebhookDeliveryRow[]>;
  /** As mail_queue: the workers' idle check. */
  webhook_queue(): Promise<MailQueue>;
}
