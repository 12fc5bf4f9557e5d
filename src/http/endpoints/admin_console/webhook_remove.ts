/**
 * POST /admin/webhooks/:id/remove: removes a subscription and its deliveries (the rule of `idp
 * webhooks remove`). Only from its confirmation page (webhook_confirm.ts: its own form token,
 * bound to the subscription, and re-authentication).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, record_console_event } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url } from "../../pages/admin_console.ts";
import { confirmation_problem, danger_values } from "../../pages/admin_confirm.ts";
import { webhook_danger } from "./webhook_confirm.ts";
import { no_such_webhook } from "./webhooks.ts";

export const AdminConsoleWebhookRemoveRequest = Fw.Request(
  "AdminConsoleWebhookRemoveRequest",
  z.object({ csrf: z.string().max(256).optional(), password: z.string().max(4096).optional() }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleWebhookRemove = (idp: Provider) =>
  class AdminConsoleWebhookRemove extends Fw.Renderable(Fw.Endpoint(AdminConsoleWebhookRemoveRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/webhooks/:id/remove`;

    async call() {
      const gate = await console_gate(idp, this, "manage_webhooks");
      if ("refused" in gate) return gate.refused;
      const webhook = await idp.store.get_webhook(this.route_params.id ?? "");
      if (webhook === null) return no_such_webhook(idp, this, gate.admin);
      const ip = client_ip(this.context, idp.config);
      const danger = webhook_danger(idp, webhook);
      const problem = await confirmation_problem(idp, gate.admin, danger, this.admin_console_webhook_remove_request, ip);
      if (problem !== null) {
        await record_console_event(idp, gate.admin.user, ip, { action: "webhook_deleted", outcome: "failure", details: { webhook_id: webhook.id, reason: "reauthentication" } });
        return this.view("admin/confirm", danger_values(idp, gate.admin, danger, { error: problem }), 403);
      }
      await idp.store.delete_webhook(webhook.id);
      await record_console_event(idp, gate.admin.user, ip, { action: "webhook_deleted", details: { webhook_id: webhook.id, url: webhook.url } });
      return this.redirect_to(`${console_url(idp, "/webhooks")}?done=webhook_removed`, 303);
    }
  };
