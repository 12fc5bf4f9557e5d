/**
 * The webhook worker: each instance runs one (serve() starts and stops it beside the mail
 * worker), on the outbox loop the mail uses (outbox_loop.ts): it claims due deliveries (a lease,
 * FOR UPDATE SKIP LOCKED on PostgreSQL: one instance attempts a delivery at a time) and attempts
 * them (oidc/webhooks/deliver.ts). A failed attempt is retried with exponential backoff (10 s,
 * doubling, at most 1 h between attempts) until the delivery is a day old, then it ends `failed`.
 */
import type { Provider } from "../../oidc/provider.ts";
import { deliver_webhook } from "../../oidc/webhooks/deliver.ts";
import { start_outbox_loop, type OutboxLoop } from "../outbox_loop.ts";

export type WebhookWorkerOptions = {
  /** How often the outbox is checked without a wake-up (ms). */
  poll_ms: number;
  /** The wait after the first failed attempt (seconds); it doubles after each one. */
  retry_base_seconds: number;
  /** The longest wait between attempts (seconds). */
  retry_max_seconds: number;
  /** Deliveries claimed at once. */
  batch: number;
};

export const DEFAULT_WEBHOOK_WORKER: WebhookWorkerOptions = { poll_ms: 10_000, retry_base_seconds: 10, retry_max_seconds: 3600, batch: 10 };

/**
 * The lease of a batch: each delivery at the longest the outbound fence lets a request take, and
 * a minute more, so no other worker takes a delivery of the batch still to be attempted.
 */
export function webhook_lease(idp: Pick<Provider, "config">, batch: number): number {
  return Math.ceil((batch * idp.config.outbound.timeout_ms) / 1000) + 60;
}

export function start_webhook_worker(idp: Provider, overrides: Partial<WebhookWorkerOptions> = {}): OutboxLoop {
  const options = { ...DEFAULT_WEBHOOK_WORKER, ...overrides };
  const lease_seconds = webhook_lease(idp, options.batch);
  return start_outbox_loop(idp, {
    name: "webhook",
    poll_ms: options.poll_ms,
    batch: options.batch,
    queue: () => idp.store.webhook_queue(),
    claim: (now, limit) => idp.store.claim_webhook_deliveries(now, { limit, lease_seconds }),
    deliver: (delivery) => deliver_webhook(idp, delivery, options),
    on_idle: (queue) => idp.metrics.webhook_queued(queue.waiting),
  });
}
