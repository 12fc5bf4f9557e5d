/**
 * GET /admin/webhooks/:id: a subscription (URL, events, when added) and its latest deliveries
 * (at most 100, newest first) with their state: queued, sent or failed, the attempts, the last
 * error; never a payload. The buttons to send a test event (webhook_test.ts) and to retry a
 * failed delivery (webhook_retry.ts), and the link to remove it (webhook_confirm.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, type ConsoleSession } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { WebhookRow } from "../../../store/types.ts";
import { console_gate, console_notice, console_url, console_values, when } from "../../pages/admin_console.ts";
import { confirm_url } from "../../pages/admin_confirm.ts";
import { no_such_webhook } from "./webhooks.ts";

export const AdminConsoleWebhookRequest = Fw.Request("AdminConsoleWebhookRequest", z.object({ done: z.string().max(64).optional() }), { from: ["query"] });

export async function webhook_page(idp: Provider, admin: ConsoleSession, webhook: WebhookRow, extra: Record<string, unknown> = {}) {
  const path = `/webhooks/${encodeURIComponent(webhook.id)}`;
  const deliveries = (await idp.store.list_webhook_deliveries({ webhook_id: webhook.id, limit: 100 })).map((delivery) => ({
    id: delivery.id,
    event_type: delivery.event_type,
    status: delivery.status,
    attempts: delivery.attempts,
    last_error: delivery.last_error,
    created: when(delivery.created_at),
    sent: when(delivery.sent_at),
    next_attempt: delivery.status === "queued" ? when(delivery.next_attempt_at) : "—",
  }));
  return console_values(idp, admin, "webhooks", "Webhook", {
    webhook: { id: webhook.id, url: webhook.url, events: webhook.events.join(", "), description: webhook.description, created: when(webhook.created_at) },
    deliveries,
    test_action: console_url(idp, `${path}/test`),
    retry_action: console_url(idp, `${path}/retry`),
    remove_url: confirm_url(idp, path, "remove"),
    back: console_url(idp, "/webhooks"),
    ...extra,
  });
}

export const AdminConsoleWebhook = (idp: Provider) =>
  class AdminConsoleWebhook extends Fw.Renderable(Fw.Endpoint(AdminConsoleWebhookRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/webhooks/:id`;

    async call() {
      const gate = await console_gate(idp, this, "view_webhooks");
      if ("refused" in gate) return gate.refused;
      const webhook = await idp.store.get_webhook(this.route_params.id ?? "");
      if (webhook === null) return no_such_webhook(idp, this, gate.admin);
      return this.view("admin/webhook", await webhook_page(idp, gate.admin, webhook, { notice: console_notice(this.admin_console_webhook_request.done) }));
    }
  };
