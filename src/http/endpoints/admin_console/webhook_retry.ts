/**
 * POST /admin/webhooks/:id/retry: a failed delivery of the subscription back to the queue (the
 * rule of `idp webhooks retry`), attempted at once; a delivery that is not failed is refused.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { retry_delivery } from "../../../oidc/webhooks/subscriptions.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url } from "../../pages/admin_console.ts";
import { webhook_page } from "./webhook.ts";
import { no_such_webhook } from "./webhooks.ts";

export const AdminConsoleWebhookRetryRequest = Fw.Request("AdminConsoleWebhookRetryRequest", z.object({ csrf: z.string().max(256).optional(), delivery: z.string().max(64) }), {
  from: ["body"],
  on_invalid: invalid_form,
});

export const AdminConsoleWebhookRetry = (idp: Provider) =>
  class AdminConsoleWebhookRetry extends Fw.Renderable(Fw.Endpoint(AdminConsoleWebhookRetryRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/webhooks/:id/retry`;

    async call() {
      const gate = await console_gate(idp, this, "manage_webhooks");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_webhook_retry_request;
      check_console_csrf(gate.admin, input.csrf);
      const webhook = await idp.store.get_webhook(this.route_params.id ?? "");
      if (webhook === null) return no_such_webhook(idp, this, gate.admin);
      const delivery = await idp.store.get_webhook_delivery(input.delivery);
      // Only a delivery of this subscription, and only a failed one.
      if (delivery === null || delivery.webhook_id !== webhook.id || !(await retry_delivery(idp, delivery.id))) {
        return this.view("admin/webhook", await webhook_page(idp, gate.admin, webhook, { error: "Only a failed delivery can be retried." }), 409);
      }
      idp.wake_webhooks?.();
      await record_console_event(idp, gate.admin.user, client_ip(this.context, idp.config), {
        action: "webhook_delivery_retried",
        details: { webhook_id: webhook.id, delivery_id: delivery.id },
      });
      return this.redirect_to(`${console_url(idp, `/webhooks/${encodeURIComponent(webhook.id)}`)}?done=webhook_delivery_retried`, 303);
    }
  };
