/**
 * GET /admin/webhooks/:id/confirm?action=remove: the confirmation page (http/pages/admin_confirm.ts)
 * of removing a subscription: its receiver hears of nothing more, and its queued deliveries are
 * dropped with it. Its form posts to /admin/webhooks/:id/remove (webhook_remove.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { WebhookRow } from "../../../store/types.ts";
import { console_gate, console_url, when } from "../../pages/admin_console.ts";
import { danger_values, type Danger } from "../../pages/admin_confirm.ts";
import { no_such_webhook } from "./webhooks.ts";

export function webhook_danger(idp: Provider, webhook: WebhookRow): Danger {
  const path = `/webhooks/${encodeURIComponent(webhook.id)}`;
  return {
    kind: "webhook",
    action: "remove",
    subject: webhook.id,
    page: "webhooks",
    heading: { key: "admin.confirm.webhook_remove_title" },
    consequence: { key: "admin.confirm.webhook_remove", values: { url: webhook.url } },
    facts: [
      { label: "admin.webhook_url", value: webhook.url, code: true },
      { label: "admin.webhook_events", value: webhook.events.join(", "), code: true },
      { label: "admin.added", value: when(webhook.created_at) },
    ],
    button: { key: "admin.remove_webhook" },
    post: console_url(idp, `${path}/remove`),
    fields: {},
    back: console_url(idp, path),
    refusal: null,
  };
}

export const AdminConsoleWebhookConfirmRequest = Fw.Request("AdminConsoleWebhookConfirmRequest", z.object({ action: z.literal("remove") }), { from: ["query"] });

export const AdminConsoleWebhookConfirm = (idp: Provider) =>
  class AdminConsoleWebhookConfirm extends Fw.Renderable(Fw.Endpoint(AdminConsoleWebhookConfirmRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/webhooks/:id/confirm`;

    async call() {
      const gate = await console_gate(idp, this, "manage_webhooks");
      if ("refused" in gate) return gate.refused;
      const webhook = await idp.store.get_webhook(this.route_params.id ?? "");
      if (webhook === null) return no_such_webhook(idp, this, gate.admin);
      return this.view("admin/confirm", danger_values(idp, gate.admin, webhook_danger(idp, webhook)));
    }
  };
