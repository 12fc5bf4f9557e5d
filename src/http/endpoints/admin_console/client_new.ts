/**
 * GET /admin/clients/new: the form that registers an application (posted to client_create.ts):
 * its name, redirect URIs, grant types, and whether it is confidential (a secret, shown once) or
 * public (PKCE, no secret). Everything else is set afterwards on its page (client.ts).
 */
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, type ConsoleSession } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { console_gate, console_url, console_values } from "../../pages/admin_console.ts";

/** The grant types the register form offers (RFC 7591 §2); token exchange needs a policy, set on the application's page. */
export const FORM_GRANT_TYPES = ["authorization_code", "refresh_token", "client_credentials", "urn:ietf:params:oauth:grant-type:device_code"] as const;

export type ClientForm = { client_name: string; redirect_uris: string; grant_types: string[]; kind: "confidential" | "public" };

export const EMPTY_CLIENT_FORM: ClientForm = { client_name: "", redirect_uris: "", grant_types: ["authorization_code", "refresh_token"], kind: "confidential" };

/** The new-application page's values; `form`: what was typed, on a refusal. */
export function new_client_page(idp: Provider, admin: ConsoleSession, form: ClientForm = EMPTY_CLIENT_FORM, extra: Record<string, unknown> = {}) {
  return console_values(idp, admin, "clients", "New application", { grant_types: FORM_GRANT_TYPES, form, back: console_url(idp, "/clients"), ...extra });
}

export const AdminConsoleClientNew = (idp: Provider) =>
  class AdminConsoleClientNew extends Fw.Renderable(Fw.Endpoint(Fw.EmptyRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/clients/new`;

    async call() {
      const gate = await console_gate(idp, this, "manage_clients");
      if ("refused" in gate) return gate.refused;
      return this.view("admin/client_new", new_client_page(idp, gate.admin));
    }
  };
