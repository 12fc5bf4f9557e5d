/**
 * POST /admin/attributes/remove: removes a custom attribute and every user's value of it (the
 * rule of `idp attributes remove` and the admin API). Only from its confirmation page
 * (attribute_confirm.ts: its own form token, bound to the name, and re-authentication).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, record_console_event } from "../../../oidc/admin/console.ts";
import { remove_attribute } from "../../../oidc/attributes/definitions.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, refusal_words } from "../../pages/admin_console.ts";
import { confirmation_problem, danger_values } from "../../pages/admin_confirm.ts";
import { attribute_danger, no_such_attribute } from "./attribute_confirm.ts";

export const AdminConsoleAttributeRemoveRequest = Fw.Request(
  "AdminConsoleAttributeRemoveRequest",
  z.object({ csrf: z.string().max(256).optional(), name: z.string().max(256), password: z.string().max(4096).optional() }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleAttributeRemove = (idp: Provider) =>
  class AdminConsoleAttributeRemove extends Fw.Renderable(Fw.Endpoint(AdminConsoleAttributeRemoveRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/attributes/remove`;

    async call() {
      const gate = await console_gate(idp, this, "manage_attributes");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_attribute_remove_request;
      const attribute = await idp.store.get_attribute_definition(input.name);
      if (attribute === null) return no_such_attribute(idp, this, gate.admin);
      const ip = client_ip(this.context, idp.config);
      const danger = attribute_danger(idp, attribute);
      const problem = await confirmation_problem(idp, gate.admin, danger, input, ip);
      if (problem !== null) {
        await record_console_event(idp, gate.admin.user, ip, { action: "attribute_removed", outcome: "failure", details: { name: attribute.name, reason: "reauthentication" } });
        return this.view("admin/confirm", danger_values(idp, gate.admin, danger, { error: problem }), 403);
      }
      try {
        await remove_attribute(idp.store, attribute.name);
        await record_console_event(idp, gate.admin.user, ip, { action: "attribute_removed", details: { name: attribute.name } });
        return this.redirect_to(`${console_url(idp, "/attributes")}?done=attribute_removed`, 303);
      } catch (error) {
        return this.view("admin/confirm", danger_values(idp, gate.admin, { ...danger, refusal: refusal_words(error) }), 409);
      }
    }
  };
