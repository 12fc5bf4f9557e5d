/**
 * POST /admin/webhooks/:id/test: queues a `webhook.test` delivery to the subscription, whatever
 * its events (the rule of `idp webhooks test`); the worker attempts it at once and its page
 * shows how it went.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { queue_test_delivery } from "../../../oidc/webhooks/subscriptions.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url } from "../../pages/admin_console.ts";
import { no_such_webhook } from "./webhooks.ts";

export const AdminConsoleWebhookTestRequest = Fw.Request("AdminConsoleWebhookTestRequest", z.object({ csrf: z.string().max(256).optional() }), {
  from: ["body"],
  on_invalid: invalid_form,
});

export const AdminConsoleWebhookTest = (idp: Provider) =>
  class AdminConsoleWebhookTest extends Fw.Renderable(Fw.Endpoint(AdminConsoleWebhookTestRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/webhooks/:id/test`;

    async call() {
      const gate = await console_gate(idp, this, "manage_webhooks");
      if ("refused" in gate) return gate.refused;
      check_console_csrf(gate.admin, this.admin_console_webhook_test_request.csrf);
      const webhook = await idp.store.get_webhook(this.route_params.id ?? "");
      if (webhook === null) return no_such_webhook(idp, this, gate.admin);
      const delivery = await queue_test_delivery(idp, webhook);
      idp.wake_webhooks?.();
      await record_console_event(idp, gate.admin.user, client_ip(this.context, idp.config), {
        action: "webhook_tested",
        details: { webhook_id: webhook.id, delivery_id: delivery.id },
      });
      return this.redirect_to(`${console_url(idp, `/webhooks/${encodeURIComponent(webhook.id)}`)}?done=webhook_test_queued`, 303);
    }
  };
