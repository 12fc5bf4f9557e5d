/**
 * GET /admin/clients: the registered applications in a table (operators register tens, not
 * millions: one page), found by any part of their name or client ID (`q`, without regard to
 * case): name, client ID, type and authentication method, when each was last used and
 * registered. Each row links to the application's page (client.ts); a new one is registered on
 * its own page (client_new.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { auth_method_of, last_used_at } from "../../../oidc/admin/clients.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import { display_name } from "../../../oidc/clients/metadata.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_page_request } from "../../errors.ts";
import { console_gate, console_notice, console_url, console_values, when } from "../../pages/admin_console.ts";
import { client_url } from "./client_confirm.ts";

export const AdminConsoleClientsRequest = Fw.Request("AdminConsoleClientsRequest", z.object({ q: z.string().trim().max(256).optional(), done: z.string().max(64).optional() }), {
  from: ["query"],
  on_invalid: invalid_page_request("The search could not be read", (issues) => `Go back and try again (${issues}).`),
});

export const AdminConsoleClients = (idp: Provider) =>
  class AdminConsoleClients extends Fw.Renderable(Fw.Endpoint(AdminConsoleClientsRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/clients`;

    async call() {
      const gate = await console_gate(idp, this, "view_clients");
      if ("refused" in gate) return gate.refused;
      const { q = "", done } = this.admin_console_clients_request;
      const wanted = q.toLowerCase();
      const rows = await idp.store.list_clients();
      const clients = rows
        .filter((row) => wanted === "" || row.client_id.toLowerCase().includes(wanted) || (row.metadata.client_name ?? "").toLowerCase().includes(wanted))
        .map((row) => {
          const used = last_used_at(row);
          return {
            client_id: row.client_id,
            name: display_name(row),
            href: client_url(idp, row.client_id),
            method: auth_method_of(row.metadata),
            public: auth_method_of(row.metadata) === "none",
            admin: row.metadata.admin === true,
            last_used: used === null ? null : when(used),
            created: when(row.created_at),
          };
        })
        .sort((a, b) => a.name.localeCompare(b.name) || a.client_id.localeCompare(b.client_id));
      return this.view(
        "admin/clients",
        console_values(idp, gate.admin, "clients", "Applications", {
          clients,
          q,
          total: rows.length,
          new_url: console_url(idp, "/clients/new"),
          notice: console_notice(done),
        }),
      );
    }
  };
