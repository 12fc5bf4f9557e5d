/**
 * GET /admin/saml/confirm?action=remove&entity_id=…: the confirmation page
 * (http/pages/admin_confirm.ts) of removing a SAML application: nobody signs in to it from now
 * on; registered again, its persistent NameIDs change (a new salt), so its accounts no longer
 * match. Its form posts to /admin/saml/remove (saml_remove.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { SamlServiceProviderRow } from "../../../store/types.ts";
import { console_gate, console_url } from "../../pages/admin_console.ts";
import { danger_values, type Danger } from "../../pages/admin_confirm.ts";
import { no_such_saml_sp, saml_sp_url } from "./saml.ts";

export function saml_danger(idp: Provider, row: SamlServiceProviderRow): Danger {
  return {
    kind: "saml_sp",
    action: "remove",
    subject: row.entity_id,
    page: "saml",
    heading: { key: "admin.confirm.saml_remove_title" },
    consequence: { key: "admin.confirm.saml_remove", values: { name: row.name } },
    facts: [
      { label: "account.name", value: row.name },
      { label: "admin.saml_entity_id", value: row.entity_id, code: true },
    ],
    button: { key: "admin.remove_saml" },
    post: console_url(idp, "/saml/remove"),
    fields: { entity_id: row.entity_id },
    back: saml_sp_url(idp, row.entity_id),
    refusal: null,
  };
}

export const AdminConsoleSamlConfirmRequest = Fw.Request("AdminConsoleSamlConfirmRequest", z.object({ action: z.literal("remove"), entity_id: z.string().max(1024) }), {
  from: ["query"],
});

export const AdminConsoleSamlConfirm = (idp: Provider) =>
  class AdminConsoleSamlConfirm extends Fw.Renderable(Fw.Endpoint(AdminConsoleSamlConfirmRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/saml/confirm`;

    async call() {
      const gate = await console_gate(idp, this, "manage_saml");
      if ("refused" in gate) return gate.refused;
      const row = await idp.store.get_saml_service_provider(this.admin_console_saml_confirm_request.entity_id);
      if (row === null) return no_such_saml_sp(idp, this, gate.admin);
      return this.view("admin/confirm", danger_values(idp, gate.admin, saml_danger(idp, row)));
    }
  };
