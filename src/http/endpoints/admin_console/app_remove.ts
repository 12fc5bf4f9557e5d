/**
 * POST /admin/apps/:name/remove: removes a protected application (the rule of `idp apps remove`).
 * Only from its confirmation page (app_confirm.ts: its own form token, bound to the name, and
 * re-authentication).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { remove_app } from "../../../oidc/admin/apps.ts";
import { ADMIN_CONSOLE, record_console_event } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, refusal_words } from "../../pages/admin_console.ts";
import { confirmation_problem, danger_values } from "../../pages/admin_confirm.ts";
import { no_such_app } from "./apps.ts";
import { app_danger } from "./app_confirm.ts";

export const AdminConsoleAppRemoveRequest = Fw.Request(
  "AdminConsoleAppRemoveRequest",
  z.object({ csrf: z.string().max(256).optional(), password: z.string().max(4096).optional() }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleAppRemove = (idp: Provider) =>
  class AdminConsoleAppRemove extends Fw.Renderable(Fw.Endpoint(AdminConsoleAppRemoveRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/apps/:name/remove`;

    async call() {
      const gate = await console_gate(idp, this, "manage_apps");
      if ("refused" in gate) return gate.refused;
      const app = await idp.store.get_protected_app(this.route_params.name ?? "");
      if (app === null) return no_such_app(idp, this, gate.admin);
      const ip = client_ip(this.context, idp.config);
      const danger = app_danger(idp, app);
      const problem = await confirmation_problem(idp, gate.admin, danger, this.admin_console_app_remove_request, ip);
      if (problem !== null) {
        await record_console_event(idp, gate.admin.user, ip, { action: "protected_app_deleted", outcome: "failure", details: { app: app.name, reason: "reauthentication" } });
        return this.view("admin/confirm", danger_values(idp, gate.admin, danger, { error: problem }), 403);
      }
      try {
        await remove_app(idp.store, app.name);
        await record_console_event(idp, gate.admin.user, ip, { action: "protected_app_deleted", details: { app: app.name } });
        return this.redirect_to(`${console_url(idp, "/apps")}?done=app_removed`, 303);
      } catch (error) {
        return this.view("admin/confirm", danger_values(idp, gate.admin, { ...danger, refusal: refusal_words(error) }), 409);
      }
    }
  };
