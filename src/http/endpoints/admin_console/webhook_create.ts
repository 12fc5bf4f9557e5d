/**
 * POST /admin/webhooks: adds a subscription by the rules of `idp webhooks add`
 * (oidc/webhooks/subscriptions.ts: the URL through the outbound fence, the events against the
 * catalogue) and shows its generated signing secret on the answer page, once: it is only kept
 * sealed under IDP_SECRET_KEY. A refusal keeps the form as typed.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { add_subscription, WebhookInputError } from "../../../oidc/webhooks/subscriptions.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, console_values } from "../../pages/admin_console.ts";
import { webhooks_page, type WebhookForm } from "./webhooks.ts";

const pattern = z.string().max(100);

export const AdminConsoleWebhookCreateRequest = Fw.Request(
  "AdminConsoleWebhookCreateRequest",
  z.object({
    csrf: z.string().max(256).optional(),
    url: z.string().max(2000).optional(),
    events: z.union([pattern, z.array(pattern).max(100)]).optional(),
    description: z.string().max(200).optional(),
  }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleWebhookCreate = (idp: Provider) =>
  class AdminConsoleWebhookCreate extends Fw.Renderable(Fw.Endpoint(AdminConsoleWebhookCreateRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/webhooks`;

    async call() {
      const gate = await console_gate(idp, this, "manage_webhooks");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_webhook_create_request;
      check_console_csrf(gate.admin, input.csrf);
      const ticked = input.events === undefined ? [] : [input.events].flat();
      const form: WebhookForm = { url: (input.url ?? "").trim(), events: [...new Set(ticked)], description: (input.description ?? "").trim() };
      const ip = client_ip(this.context, idp.config);
      try {
        const { webhook, secret } = await add_subscription(idp, { url: form.url, events: form.events, description: form.description });
        await record_console_event(idp, gate.admin.user, ip, { action: "webhook_created", details: { webhook_id: webhook.id, url: webhook.url, events: webhook.events } });
        // The answer itself shows the secret: never cached (console_gate), never in a URL.
        return this.view(
          "admin/webhook_secret",
          console_values(idp, gate.admin, "webhooks", "Webhook added", {
            webhook: { id: webhook.id, url: webhook.url, events: webhook.events.join(", ") },
            secret,
            page_url: console_url(idp, `/webhooks/${encodeURIComponent(webhook.id)}`),
            back: console_url(idp, "/webhooks"),
          }),
          201,
        );
      } catch (error) {
        if (!(error instanceof WebhookInputError)) throw error;
        await record_console_event(idp, gate.admin.user, ip, { action: "webhook_created", outcome: "failure", details: { url: form.url } });
        return this.view("admin/webhooks", await webhooks_page(idp, gate.admin, { error: error.message, form }), 422);
      }
    }
  };
