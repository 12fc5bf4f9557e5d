/**
 * POST /admin/saml/remove: removes a SAML application (the rule of `idp saml remove`). Only from
 * its confirmation page (saml_confirm.ts: its own form token, bound to the entityID, and
 * re-authentication).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, record_console_event } from "../../../oidc/admin/console.ts";
import { not_found } from "../../../oidc/admin/errors.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, refusal_words } from "../../pages/admin_console.ts";
import { confirmation_problem, danger_values } from "../../pages/admin_confirm.ts";
import { no_such_saml_sp } from "./saml.ts";
import { saml_danger } from "./saml_confirm.ts";

export const AdminConsoleSamlRemoveRequest = Fw.Request(
  "AdminConsoleSamlRemoveRequest",
  z.object({ csrf: z.string().max(256).optional(), entity_id: z.string().max(1024), password: z.string().max(4096).optional() }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleSamlRemove = (idp: Provider) =>
  class AdminConsoleSamlRemove extends Fw.Renderable(Fw.Endpoint(AdminConsoleSamlRemoveRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/saml/remove`;

    async call() {
      const gate = await console_gate(idp, this, "manage_saml");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_saml_remove_request;
      const row = await idp.store.get_saml_service_provider(input.entity_id);
      if (row === null) return no_such_saml_sp(idp, this, gate.admin);
      const ip = client_ip(this.context, idp.config);
      const danger = saml_danger(idp, row);
      const problem = await confirmation_problem(idp, gate.admin, danger, input, ip);
      if (problem !== null) {
        await record_console_event(idp, gate.admin.user, ip, { action: "saml_sp_deleted", outcome: "failure", details: { entity_id: row.entity_id, reason: "reauthentication" } });
        return this.view("admin/confirm", danger_values(idp, gate.admin, danger, { error: problem }), 403);
      }
      try {
        if (!(await idp.store.delete_saml_service_provider(row.entity_id))) throw not_found("service provider", row.entity_id);
        await record_console_event(idp, gate.admin.user, ip, { action: "saml_sp_deleted", details: { entity_id: row.entity_id } });
        return this.redirect_to(`${console_url(idp, "/saml")}?done=saml_sp_removed`, 303);
      } catch (error) {
        return this.view("admin/confirm", danger_values(idp, gate.admin, { ...danger, refusal: refusal_words(error) }), 409);
      }
    }
  };
