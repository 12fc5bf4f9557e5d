/**
 * GET /admin/clients: the registered applications (operators register tens, not millions: one
 * page), when each one's secrets were made and last used, and the form to register one.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import { auth_method_of, public_client, secret_dates } from "../../../oidc/admin/clients.ts";
import { etag_of } from "../../../oidc/admin/etag.ts";
import type { ConsoleSession } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { ClientRow } from "../../../store/types.ts";
import { console_gate, console_notice, console_values, when } from "../../pages/admin_console.ts";
import { client_confirm_url } from "./client_confirm.ts";

export const AdminConsoleClientsRequest = Fw.Request("AdminConsoleClientsRequest", z.object({ done: z.string().max(64).optional() }), { from: ["query"] });

/** The grant types the register form offers (RFC 7591 §2); the registration rules check the rest. */
export const FORM_GRANT_TYPES = ["authorization_code", "refresh_token", "client_credentials", "urn:ietf:params:oauth:grant-type:device_code"] as const;

export type ClientForm = { client_name: string; redirect_uris: string; grant_types: string[]; kind: "confidential" | "public" };

export const EMPTY_CLIENT_FORM: ClientForm = { client_name: "", redirect_uris: "", grant_types: ["authorization_code", "refresh_token"], kind: "confidential" };

/** A client's secret dates as the page shows them (oidc/admin/clients.ts secret_dates); null without a secret. */
function secret_view(row: ClientRow, now: number) {
  const dates = secret_dates(row, now);
  if (dates === null) return null;
  const previous = dates.previous === null ? null : { created: when(dates.previous.created_at), used: when(dates.previous.last_used_at), until: when(dates.previous.expires_at) };
  return { created: when(dates.created_at), used: when(dates.last_used_at), previous };
}

export async function clients_page(idp: Provider, admin: ConsoleSession, extra: Record<string, unknown> = {}) {
  const clients = (await idp.store.list_clients()).map((row) => {
    const shown = public_client(row);
    // The ETag of the client as shown, for the edit form (the API's If-Match rule).
    return {
      ...shown,
      etag: etag_of(shown),
      auth: auth_method_of(row.metadata),
      created: when(row.created_at),
      redirects: (shown.redirect_uris ?? []).join("\n"),
      grants: shown.grant_types ?? ["authorization_code"],
      allowed: (row.metadata.allowed_groups ?? []).join(", "),
      roles_text: Object.entries(row.metadata.roles ?? {})
        .map(([group, role]) => `${group}=${role}`)
        .join("\n"),
      // A new secret and a deletion are confirmed on their own page (client_confirm.ts).
      rotate_url: client_confirm_url(idp, row.client_id, "rotate_secret"),
      delete_url: client_confirm_url(idp, row.client_id, "delete"),
      // When each secret was made and last used; a previous one's grace period can end early.
      secret: secret_view(row, idp.now()),
      end_grace_url: client_confirm_url(idp, row.client_id, "end_grace"),
    };
  });
  return console_values(idp, admin, "clients", "Applications", { clients, grant_types: FORM_GRANT_TYPES, form: EMPTY_CLIENT_FORM, ...extra });
}

export const AdminConsoleClients = (idp: Provider) =>
  class AdminConsoleClients extends Fw.Renderable(Fw.Endpoint(AdminConsoleClientsRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/clients`;

    async call() {
      const gate = await console_gate(idp, this, "view_clients");
      if ("refused" in gate) return gate.refused;
      return this.view("admin/clients", await clients_page(idp, gate.admin, { notice: console_notice(this.admin_console_clients_request.done) }));
    }
  };
