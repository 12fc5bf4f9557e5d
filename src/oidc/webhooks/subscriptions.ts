/**
 * Managing subscriptions, the same for the CLI (src/cli/webhooks.ts), the admin API and the
 * console: adding one (URL and events checked, the secret generated or checked, then sealed),
 * removing one, queuing a test delivery and retrying a failed delivery.
 */
import { randomBytes } from "node:crypto";
import { check_destination, OutboundError, target_of, type Resolver } from "../outbound/fetch.ts";
import type { Provider } from "../provider.ts";
import type { Store, WebhookDeliveryRow, WebhookRow } from "../../store/types.ts";
import { event_pattern_problem, TEST_EVENT_TYPE } from "./events.ts";
import { new_delivery, WEBHOOK_GIVE_UP_SECONDS } from "./fan_out.ts";
import { generate_webhook_secret, seal_webhook_secret, webhook_key } from "./secret.ts";

/** A subscription that cannot be made as asked: the message says why, for the operator. */
export class WebhookInputError extends Error {}

export type WebhookContext = { config: Provider["config"]; store: Store; now: () => number };

export type NewSubscription = {
  url: string;
  events: readonly string[];
  /** `whsec_…`; generated when absent. */
  secret?: string | undefined;
  description?: string | undefined;
  /** Tests inject a resolver. */
  resolve?: Resolver;
};

/** What a listing shows of a subscription: never the secret. */
export type WebhookView = Omit<WebhookRow, "secret_sealed">;

export const webhook_view = ({ secret_sealed: _sealed, ...view }: WebhookRow): WebhookView => view;

const MAX_URL = 2000;
const MAX_DESCRIPTION = 200;

/**
 * Checks the URL as the outbound fence will (scheme, credentials, every resolved address public or
 * allow-listed), so a subscription to an intranet receiver fails here, not at each delivery. A host
 * that does not resolve yet is taken (the fence checks again at each delivery).
 */
async function checked_url(ctx: WebhookContext, uri: string, resolve?: Resolver): Promise<string> {
  if (uri.length > MAX_URL) throw new WebhookInputError(`the URL is longer than ${MAX_URL} characters`);
  try {
    const url = target_of(uri, ctx.config.outbound);
    if (url.hash !== "") throw new OutboundError("refused", "the URL has a fragment", { host: url.host });
    await check_destination(url, ctx.config.outbound.allow, resolve);
    return url.href;
  } catch (error) {
    if (error instanceof OutboundError && error.kind === "refused") {
      throw new WebhookInputError(`${uri} is refused by the outbound fence: ${error.reason} (an intranet receiver must be in IDP_OUTBOUND_ALLOW)`);
    }
    if (error instanceof OutboundError) return new URL(uri).href;
    throw error;
  }
}

/** Adds a subscription; resolves to it and its secret (shown once: it is only kept sealed). */
export async function add_subscription(ctx: WebhookContext, input: NewSubscription): Promise<{ webhook: WebhookView; secret: string }> {
  const url = await checked_url(ctx, input.url, input.resolve);
  const events = [...new Set(input.events.map((e) => e.trim()))];
  if (events.length === 0) throw new WebhookInputError("name at least one event (--event user.created, --event 'user.*', --event '*')");
  for (const event of events) {
    const problem = event_pattern_problem(event);
    if (problem !== null) throw new WebhookInputError(problem);
  }
  const description = input.description?.trim() || undefined;
  if (description !== undefined && description.length > MAX_DESCRIPTION) throw new WebhookInputError(`the description is longer than ${MAX_DESCRIPTION} characters`);
  const secret = input.secret ?? generate_webhook_secret();
  try {
    webhook_key(secret);
  } catch (error) {
    throw new WebhookInputError((error as Error).message);
  }
  const id = `wh_${randomBytes(9).toString("base64url")}`;
  let secret_sealed: string;
  try {
    secret_sealed = seal_webhook_secret(ctx.config.federation.secret_key, id, secret);
  } catch (error) {
    throw new WebhookInputError((error as Error).message);
  }
  const row = await ctx.store.add_webhook({ id, url, events, secret_sealed, ...(description !== undefined && { description }), created_at: ctx.now() });
  return { webhook: webhook_view(row), secret };
}

/** Queues a `webhook.test` delivery to one subscription, whatever its events. */
export async function queue_test_delivery(ctx: WebhookContext, webhook: WebhookRow): Promise<WebhookDeliveryRow> {
  const now = ctx.now();
  const [row] = await ctx.store.enqueue_webhook_deliveries([new_delivery(webhook, TEST_EVENT_TYPE, now, { webhook_id: webhook.id, message: "a test delivery" })]);
  return row!;
}

/** A failed delivery back to the queue; false unless it was failed. */
export function retry_delivery(ctx: WebhookContext, id: string): Promise<boolean> {
  const now = ctx.now();
  return ctx.store.retry_webhook_delivery(id, now, now + WEBHOOK_GIVE_UP_SECONDS);
}
