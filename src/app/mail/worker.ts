/**
 * The mail worker: each instance runs one (serve() starts and stops it beside the purge loop).
 * It claims due messages from the outbox (store/types/mail.ts: a lease, and FOR UPDATE SKIP
 * LOCKED on PostgreSQL, so instances never send one message twice), delivers them one by one and
 * marks the outcome. A failed attempt is retried with exponential backoff (30 s, doubling, at
 * most 1 h between attempts) until the message is a day old, then it ends `failed`; a permanent
 * refusal (a 5xx to the message) ends it at once. `idp mail retry` queues a failed one again.
 *
 * Its loop is every outbox's (outbox_loop.ts): it runs when woken (`idp.mail.send()` wakes it)
 * and every `poll_ms`; the backoff is oidc/ops/backoff.ts. Failures are logged without the body (it may hold a link with a
 * token) and counted in the metrics; nobody else hears of them.
 */
import type { Provider } from "../../oidc/provider.ts";
import { next_attempt } from "../../oidc/ops/backoff.ts";
import type { MailRow } from "../../store/types.ts";
import { start_outbox_loop } from "../outbox_loop.ts";
import { SMTP_MAX_DELIVERY_SECONDS } from "./smtp.ts";
import { MailDeliveryError, type MailTransport, type Sender } from "./transport.ts";

export type MailWorkerOptions = {
  /** How often the outbox is checked without a wake-up (ms). */
  poll_ms: number;
  /** The wait after the first failed attempt (seconds); it doubles after each one. */
  retry_base_seconds: number;
  /** The longest wait between attempts (seconds). */
  retry_max_seconds: number;
  /** Messages claimed at once. */
  batch: number;
  /**
   * How long a claim holds (seconds): the messages of a batch are sent one after the other, so a
   * claim must outlast the whole batch, or another worker could take a message still to be sent.
   */
  lease_seconds: number;
};

/** The lease for a batch: every message at the longest a delivery can take, and a minute more. */
export function lease_for(batch: number): number {
  return Math.ceil(batch * SMTP_MAX_DELIVERY_SECONDS) + 60;
}

export const DEFAULT_MAIL_WORKER: MailWorkerOptions = {
  poll_ms: 10_000,
  retry_base_seconds: 30,
  retry_max_seconds: 3600,
  batch: 10,
  lease_seconds: lease_for(10),
};

export { next_attempt };

export type DeliveryOutcome = { status: "sent" } | { status: "retry"; retry_at: number; error: string } | { status: "failed"; error: string } | { status: "lost" };

/** What a delivery needs: the provider's store, clock, log and metrics, the transport and the From (transport.ts `mail_sender`). */
export type Deliverer = {
  idp: Pick<Provider, "store" | "now" | "log" | "metrics">;
  transport: MailTransport;
  from: Sender;
  options: Pick<MailWorkerOptions, "retry_base_seconds" | "retry_max_seconds">;
};

/** Delivers one claimed message and records the outcome ("lost": another worker took it over). */
export async function deliver(deliverer: Deliverer, mail: MailRow): Promise<DeliveryOutcome> {
  const { idp, transport } = deliverer;
  try {
    await transport.send({ from: deliverer.from, to: mail.recipient, subject: mail.subject, text: mail.text, html: mail.html });
  } catch (error) {
    const permanent = error instanceof MailDeliveryError && error.permanent;
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
    const now = idp.now();
    const retry_at = permanent ? null : next_attempt(mail.attempts, now, mail.give_up_at, deliverer.options);
    const held = await idp.store.mark_mail_failed(mail.id, mail.attempts, { error: message, retry_at });
    idp.metrics.mail_failed(retry_at === null ? "failed" : "retry");
    // The body never goes to the log: it may hold a link with a single-use token.
    idp.log({
      level: retry_at === null ? "error" : "warn",
      msg: retry_at === null ? "mail delivery failed for good" : "mail delivery failed, will retry",
      mail_id: mail.id,
      template: mail.template,
      attempts: mail.attempts,
      error: message,
      ...(retry_at === null ? { permanent } : { retry_at }),
    });
    if (!held) return { status: "lost" };
    return retry_at === null ? { status: "failed", error: message } : { status: "retry", retry_at, error: message };
  }
  const held = await idp.store.mark_mail_sent(mail.id, mail.attempts, idp.now());
  idp.metrics.mail_sent();
  if (transport.kind === "smtp") idp.log({ level: "info", msg: "mail sent", mail_id: mail.id, template: mail.template, attempts: mail.attempts });
  return held ? { status: "sent" } : { status: "lost" };
}

export type MailWorker = {
  /** Runs soon (a message was queued). */
  wake(): void;
  /** Delivers every due message now (or waits for the running pass); resolves to how many were handled. */
  run(): Promise<number>;
  /** No new passes; waits for the running one, then closes the transport. */
  stop(): Promise<void>;
};

export function start_mail_worker(idp: Provider, transport: MailTransport, from: Sender, overrides: Partial<MailWorkerOptions> = {}): MailWorker {
  const batch = overrides.batch ?? DEFAULT_MAIL_WORKER.batch;
  const options = { ...DEFAULT_MAIL_WORKER, lease_seconds: lease_for(batch), ...overrides };
  const deliverer: Deliverer = { idp, transport, from, options };
  idp.log({ level: "info", msg: "mail worker started", transport: transport.description });
  const loop = start_outbox_loop(idp, {
    name: "mail",
    poll_ms: options.poll_ms,
    batch: options.batch,
    queue: () => idp.store.mail_queue(),
    claim: (now, limit) => idp.store.claim_mail(now, { limit, lease_seconds: options.lease_seconds }),
    deliver: (mail) => deliver(deliverer, mail),
    on_idle: (queue) => idp.metrics.mail_queued(queue.waiting),
  });
  return {
    wake: loop.wake,
    run: loop.run,
    async stop() {
      await loop.stop();
      transport.close();
    },
  };
}
