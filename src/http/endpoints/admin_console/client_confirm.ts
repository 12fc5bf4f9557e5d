/**
 * GET /admin/clients/:client_id/confirm?action=delete|rotate_secret|end_grace: the confirmation
 * page (http/pages/admin_confirm.ts) of deleting an application (its grants and tokens end),
 * giving it a new secret (it cannot authenticate until it has the new one, unless the old one
 * keeps working for the grace period chosen here), or ending such a grace period early. Its form
 * posts to /admin/clients/:client_id (client_action.ts). A client without a secret, or without
 * a previous secret still working, is refused here already, saying why. Also the addresses of an
 * application's page and its 404 page, which the other application endpoints share.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import type { Html } from "../../../fw/response.ts";
import { ADMIN_CONSOLE, type ConsoleSession } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { previous_secret_live } from "../../../oidc/clients/previous_secret.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { ClientRow } from "../../../store/types.ts";
import { console_gate, console_url, console_values, when, type ConsoleEndpoint } from "../../pages/admin_console.ts";
import { confirm_url, danger_values, type Danger } from "../../pages/admin_confirm.ts";
import { client_of } from "../admin/clients/find.ts";

export const CLIENT_DANGERS = ["delete", "rotate_secret", "end_grace"] as const;
export type ClientDanger = (typeof CLIENT_DANGERS)[number];

const WORDS: Record<ClientDanger, { heading: string; consequence: string; button: string }> = {
  delete: { heading: "admin.confirm.client_delete_title", consequence: "admin.confirm.client_delete", button: "admin.confirm.client_delete_button" },
  rotate_secret: { heading: "admin.confirm.client_rotate_title", consequence: "admin.confirm.client_rotate", button: "admin.confirm.client_rotate_button" },
  end_grace: { heading: "admin.confirm.client_end_grace_title", consequence: "admin.confirm.client_end_grace", button: "admin.end_grace" },
};

/** The grace periods a rotation offers (oidc/admin/clients.ts GRACE_SECONDS), none first. */
const GRACE_CHOICES = [
  { seconds: 0, label: "admin.confirm.grace_none" },
  { seconds: 3600, label: "admin.confirm.grace_hour" },
  { seconds: 86400, label: "admin.confirm.grace_day" },
] as const;

/** Why `action` on `client` is refused before it is asked for, or null. */
function refusal(client: ClientRow, action: ClientDanger, now: number): string | null {
  if (action === "rotate_secret" && client.client_secret_hash === null) return "a public client has no secret to rotate";
  if (action === "end_grace" && previous_secret_live(client, now) === null) return `client "${client.client_id}" has no previous secret that still works`;
  return null;
}

/** The confirmation of `action` on `client`. */
export function client_danger(idp: Provider, client: ClientRow, action: ClientDanger): Danger {
  const name = client.metadata.client_name ?? client.client_id;
  const words = WORDS[action];
  return {
    kind: "client",
    action,
    subject: client.client_id,
    page: "clients",
    heading: { key: words.heading, values: { client: name } },
    consequence: { key: words.consequence, values: { client: name, until: when(client.previous_secret_expires_at) } },
    facts: [
      { label: "admin.application", value: name },
      { label: "admin.client_id", value: client.client_id, code: true },
    ],
    button: { key: words.button },
    post: client_url(idp, client.client_id),
    fields: { action },
    back: client_url(idp, client.client_id),
    refusal: refusal(client, action, idp.now()),
    ...(action === "rotate_secret" && { grace: GRACE_CHOICES }),
  };
}

/** The page of an application (client.ts), by its client ID; its forms post there too (client_action.ts). */
export function client_url(idp: Provider, client_id: string): string {
  return console_url(idp, `/clients/${encodeURIComponent(client_id)}`);
}

/** The link to the confirmation of `action` on the client `client_id`. */
export function client_confirm_url(idp: Provider, client_id: string, action: ClientDanger): string {
  return confirm_url(idp, `/clients/${encodeURIComponent(client_id)}`, action);
}

/** The 404 page of an application that does not exist (any more). */
export function missing_client(idp: Provider, admin: ConsoleSession, endpoint: ConsoleEndpoint): Html {
  return endpoint.view(
    "message",
    {
      ...console_values(idp, admin, "clients", "No such application"),
      message: "This application does not exist (any more).",
      link: { href: console_url(idp, "/clients"), text: "Back to applications" },
      form: null,
    },
    404,
  );
}

export const AdminConsoleClientConfirmRequest = Fw.Request("AdminConsoleClientConfirmRequest", z.object({ action: z.enum(CLIENT_DANGERS) }), { from: ["query"] });

export const AdminConsoleClientConfirm = (idp: Provider) =>
  class AdminConsoleClientConfirm extends Fw.Renderable(Fw.Endpoint(AdminConsoleClientConfirmRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/clients/:client_id/confirm`;

    async call() {
      const gate = await console_gate(idp, this, "manage_clients");
      if ("refused" in gate) return gate.refused;
      let client: ClientRow;
      try {
        client = await client_of(idp, this.route_params.client_id ?? "");
      } catch (error) {
        if (!(error instanceof AdminError)) throw error;
        return missing_client(idp, gate.admin, this);
      }
      const danger = client_danger(idp, client, this.admin_console_client_confirm_request.action);
      return this.view("admin/confirm", danger_values(idp, gate.admin, danger), danger.refusal === null ? 200 : 409);
    }
  };
