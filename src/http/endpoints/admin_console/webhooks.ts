/**
 * GET /admin/webhooks: the webhook subscriptions (URL, events, when added; never a secret, it is
 * only kept sealed) with a link to each one's page (webhook.ts), and the form to add one
 * (webhook_create.ts) with the event catalogue as checkboxes, by the rules of `idp webhooks add`
 * (oidc/webhooks/subscriptions.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, type ConsoleSession } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { WEBHOOK_EVENT_GROUPS, webhook_event_catalogue } from "../../../oidc/webhooks/events.ts";
import { console_gate, console_notice, console_url, console_values, when, type ConsoleEndpoint } from "../../pages/admin_console.ts";

export const AdminConsoleWebhooksRequest = Fw.Request("AdminConsoleWebhooksRequest", z.object({ done: z.string().max(64).optional() }), { from: ["query"] });

/** The add form as typed: kept when the rules refuse it. */
export type WebhookForm = { url: string; events: string[]; description: string };

/** The patterns the form offers: every event, each group's wildcard, then each type of the catalogue. */
export function event_choices(): { value: string; sources: string }[] {
  return [
    { value: "*", sources: "" },
    ...WEBHOOK_EVENT_GROUPS.map((group) => ({ value: `${group}.*`, sources: "" })),
    ...webhook_event_catalogue().map((entry) => ({ value: entry.type, sources: entry.sources.join(", ") })),
  ];
}

export async function webhooks_page(idp: Provider, admin: ConsoleSession, extra: Record<string, unknown> = {}) {
  const webhooks = (await idp.store.list_webhooks()).map((webhook) => ({
    id: webhook.id,
    url: webhook.url,
    events: webhook.events.join(", "),
    description: webhook.description,
    created: when(webhook.created_at),
    href: console_url(idp, `/webhooks/${encodeURIComponent(webhook.id)}`),
  }));
  return console_values(idp, admin, "webhooks", "Webhooks", {
    webhooks,
    choices: event_choices(),
    secret_key_set: idp.config.federation.secret_key !== undefined,
    form: { url: "", events: [], description: "" } satisfies WebhookForm,
    ...extra,
  });
}

/** The 404 page of a subscription that does not exist (any more). */
export function no_such_webhook(idp: Provider, endpoint: Pick<ConsoleEndpoint, "view">, admin: ConsoleSession) {
  return endpoint.view(
    "message",
    {
      ...console_values(idp, admin, "webhooks", "No such webhook"),
      message: "This webhook does not exist (any more).",
      link: { href: console_url(idp, "/webhooks"), text: "Back to the webhooks" },
      form: null,
    },
    404,
  );
}

export const AdminConsoleWebhooks = (idp: Provider) =>
  class AdminConsoleWebhooks extends Fw.Renderable(Fw.Endpoint(AdminConsoleWebhooksRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/webhooks`;

    async call() {
      const gate = await console_gate(idp, this, "view_webhooks");
      if ("refused" in gate) return gate.refused;
      return this.view("admin/webhooks", await webhooks_page(idp, gate.admin, { notice: console_notice(this.admin_console_webhooks_request.done) }));
    }
  };
