/**
 * One attempt of a claimed delivery: signed (sign.ts), POSTed through the outbound fence
 * (outbound/fetch.ts: private addresses refused unless in IDP_OUTBOUND_ALLOW, its timeouts), any
 * 2xx counts as received. The receiver's body is never read or stored: the outcome keeps a short
 * reason (`answered 503`). A refused destination or an unreadable secret ends the delivery
 * `failed` at once (`idp webhooks retry` after fixing it); other failures are retried with the
 * outbox's backoff until the delivery is a day old.
 */
import { outbound_fetch, OutboundError, type OutboundContext } from "../outbound/fetch.ts";
import type { Provider } from "../provider.ts";
import type { WebhookDeliveryRow } from "../../store/types.ts";
import { next_attempt, type Backoff } from "../ops/backoff.ts";
import { WEBHOOK_PURPOSE } from "./events.ts";
import { open_webhook_secret } from "./secret.ts";
import { webhook_headers } from "./sign.ts";

export type WebhookOutcome = { status: "sent" } | { status: "retry"; retry_at: number; error: string } | { status: "failed"; error: string } | { status: "lost" };

export type WebhookDeliverer = OutboundContext & Pick<Provider, "metrics">;

const ACCEPTED = Array.from({ length: 100 }, (_, i) => 200 + i);

/** Delivers one claimed delivery and records the outcome ("lost": another worker took it over). */
export async function deliver_webhook(idp: WebhookDeliverer, delivery: WebhookDeliveryRow, backoff: Backoff): Promise<WebhookOutcome> {
  const { store } = idp;
  let error: string;
  let permanent = false;
  const webhook = await store.get_webhook(delivery.webhook_id);
  if (webhook === null) {
    error = "the webhook was removed";
    permanent = true;
  } else {
    try {
      const secret = open_webhook_secret(idp.config.federation.secret_key, webhook.id, webhook.secret_sealed);
      await outbound_fetch(idp, webhook.url, {
        purpose: WEBHOOK_PURPOSE,
        method: "POST",
        headers: webhook_headers(secret, delivery.id, idp.now(), delivery.payload),
        body: delivery.payload,
        accept_status: ACCEPTED,
        max_bytes: 0,
      });
      const held = await store.mark_webhook_delivery_sent(delivery.id, delivery.attempts, idp.now());
      idp.metrics.webhook_delivery("sent");
      return held ? { status: "sent" } : { status: "lost" };
    } catch (caught) {
      permanent = !(caught instanceof OutboundError) || caught.kind === "refused";
      error = (caught instanceof OutboundError ? caught.reason : caught instanceof Error ? caught.message : String(caught)).slice(0, 200);
    }
  }
  const retry_at = permanent ? null : next_attempt(delivery.attempts, idp.now(), delivery.give_up_at, backoff);
  const held = await store.mark_webhook_delivery_failed(delivery.id, delivery.attempts, { error, retry_at });
  idp.metrics.webhook_delivery(retry_at === null ? "failed" : "retry");
  idp.log({
    level: retry_at === null ? "error" : "warn",
    msg: retry_at === null ? "webhook delivery failed for good" : "webhook delivery failed, will retry",
    delivery_id: delivery.id,
    webhook_id: delivery.webhook_id,
    type: delivery.event_type,
    attempts: delivery.attempts,
    error,
    ...(retry_at !== null && { retry_at }),
  });
  if (!held) return { status: "lost" };
  return retry_at === null ? { status: "failed", error } : { status: "retry", retry_at, error };
}
