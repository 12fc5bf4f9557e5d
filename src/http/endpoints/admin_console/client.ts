/**
 * GET /admin/clients/:client_id: one application: what it is (client ID, type, whether it may
 * use the admin API, when it was registered and last used), every setting `idp clients add|update`
 * knows in one form (client_form.ts, saved by client_action.ts with the ETag of what it shows),
 * its secret's dates, and the links to the confirmation pages of a new secret, of ending the old
 * one's grace period, and of deleting it (client_confirm.ts). A role that may only look (the
 * auditor, oidc/admin/roles.ts) sees the same settings as text, with no form.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { auth_method_of, last_used_at, public_client, secret_dates } from "../../../oidc/admin/clients.ts";
import { ADMIN_CONSOLE, type ConsoleSession } from "../../../oidc/admin/console.ts";
import { AdminError, type FieldProblem } from "../../../oidc/admin/errors.ts";
import { etag_of } from "../../../oidc/admin/etag.ts";
import { display_name } from "../../../oidc/clients/metadata.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { ClientRow } from "../../../store/types.ts";
import { console_gate, console_notice, console_url, console_values, when } from "../../pages/admin_console.ts";
import { client_of } from "../admin/clients/find.ts";
import { client_confirm_url, client_url, missing_client } from "./client_confirm.ts";
import { form_of_client, type SettingsForm } from "./client_form.ts";
import { settings_sections } from "./client_sections.ts";

export const AdminConsoleClientRequest = Fw.Request("AdminConsoleClientRequest", z.object({ done: z.string().max(64).optional() }), { from: ["query"] });

/** A client's secret dates as the page shows them (oidc/admin/clients.ts secret_dates); null without a secret. */
function secret_view(row: ClientRow, now: number) {
  const dates = secret_dates(row, now);
  if (dates === null) return null;
  const previous = dates.previous === null ? null : { created: when(dates.previous.created_at), used: when(dates.previous.last_used_at), until: when(dates.previous.expires_at) };
  return { created: when(dates.created_at), used: when(dates.last_used_at), previous };
}

/** What a refused save shows again: the form as typed and the problems of the refusal. */
export type Refused = { form: SettingsForm; problems: readonly FieldProblem[] };

/** The application page's values; `refused` keeps what was typed, `extra` carries a notice, a refusal's words, warnings. */
export function client_page(idp: Provider, admin: ConsoleSession, client: ClientRow, refused: Refused | null, extra: Record<string, unknown> = {}) {
  const form = refused?.form ?? form_of_client(client, etag_of(public_client(client)));
  const name = display_name(client);
  const method = auth_method_of(client.metadata);
  return console_values(idp, admin, "clients", `Application ${name}`, {
    // The heading in the page's language (views/admin/_nav.eta): a catalog message with the name.
    heading_message: { key: "admin.title.client", values: { name } },
    client_id: client.client_id,
    facts: {
      public: method === "none",
      method,
      admin: client.metadata.admin === true,
      created: when(client.created_at),
      updated: when(client.updated_at),
      first_used: client.first_used_at === null ? null : when(client.first_used_at),
      last_used: last_used_at(client) === null ? null : when(last_used_at(client)),
    },
    action: client_url(idp, client.client_id),
    etag: form.etag,
    sections: settings_sections(form, refused?.problems ?? [], { signing_algs: idp.keys.signing_algs(), admin: client.metadata.admin === true }),
    secret: secret_view(client, idp.now()),
    has_secret: client.client_secret_hash !== null,
    // A new secret, the end of a grace period and a deletion are confirmed on their own page (client_confirm.ts).
    confirm: {
      rotate_secret: client_confirm_url(idp, client.client_id, "rotate_secret"),
      end_grace: client_confirm_url(idp, client.client_id, "end_grace"),
      delete: client_confirm_url(idp, client.client_id, "delete"),
    },
    audit: `${console_url(idp, "/audit")}?${new URLSearchParams({ client: client.client_id })}`,
    warnings: [],
    ...extra,
  });
}

export const AdminConsoleClient = (idp: Provider) =>
  class AdminConsoleClient extends Fw.Renderable(Fw.Endpoint(AdminConsoleClientRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/clients/:client_id`;

    async call() {
      const gate = await console_gate(idp, this, "view_clients");
      if ("refused" in gate) return gate.refused;
      let client: ClientRow;
      try {
        client = await client_of(idp, this.route_params.client_id ?? "");
      } catch (error) {
        if (!(error instanceof AdminError)) throw error;
        return missing_client(idp, gate.admin, this);
      }
      return this.view("admin/client", client_page(idp, gate.admin, client, null, { notice: console_notice(this.admin_console_client_request.done) }));
    }
  };
