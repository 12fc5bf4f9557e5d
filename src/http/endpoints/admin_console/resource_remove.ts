/**
 * POST /admin/resources/remove: removes a resource server (the rule of `idp resources remove`
 * and the admin API: oidc/admin/resources.ts). Only from its confirmation page
 * (resource_confirm.ts: its own form token, bound to the URI, and re-authentication).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, record_console_event } from "../../../oidc/admin/console.ts";
import { remove_resource_server } from "../../../oidc/admin/resources.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, refusal_words } from "../../pages/admin_console.ts";
import { confirmation_problem, danger_values } from "../../pages/admin_confirm.ts";
import { no_such_resource, resource_danger } from "./resource_confirm.ts";

export const AdminConsoleResourceRemoveRequest = Fw.Request(
  "AdminConsoleResourceRemoveRequest",
  z.object({ csrf: z.string().max(256).optional(), uri: z.string().max(4096), password: z.string().max(4096).optional() }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleResourceRemove = (idp: Provider) =>
  class AdminConsoleResourceRemove extends Fw.Renderable(Fw.Endpoint(AdminConsoleResourceRemoveRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/resources/remove`;

    async call() {
      const gate = await console_gate(idp, this, "manage_resources");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_resource_remove_request;
      const resource = await idp.store.get_resource_server(input.uri);
      if (resource === null) return no_such_resource(idp, this, gate.admin);
      const ip = client_ip(this.context, idp.config);
      const danger = await resource_danger(idp, resource);
      const problem = await confirmation_problem(idp, gate.admin, danger, input, ip);
      if (problem !== null) {
        await record_console_event(idp, gate.admin.user, ip, { action: "resource_deleted", outcome: "failure", details: { uri: resource.uri, reason: "reauthentication" } });
        return this.view("admin/confirm", danger_values(idp, gate.admin, danger, { error: problem }), 403);
      }
      try {
        await remove_resource_server(idp.store, resource.uri);
        await record_console_event(idp, gate.admin.user, ip, { action: "resource_deleted", details: { uri: resource.uri } });
        return this.redirect_to(`${console_url(idp, "/resources")}?done=resource_removed`, 303);
      } catch (error) {
        return this.view("admin/confirm", danger_values(idp, gate.admin, { ...danger, refusal: refusal_words(error) }), 409);
      }
    }
  };
