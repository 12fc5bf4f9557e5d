/**
 * GET /admin/apps/:name/confirm?action=remove: the confirmation page (http/pages/admin_confirm.ts)
 * of removing a protected application: the proxy's next check for it is refused, so nobody
 * opens it through the proxy until it is registered again. Its form posts to
 * /admin/apps/:name/remove (app_remove.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { ProtectedAppRow } from "../../../store/types.ts";
import { console_gate, console_url } from "../../pages/admin_console.ts";
import { danger_values, type Danger } from "../../pages/admin_confirm.ts";
import { no_such_app } from "./apps.ts";

export function app_danger(idp: Provider, app: ProtectedAppRow): Danger {
  const path = `/apps/${encodeURIComponent(app.name)}`;
  return {
    kind: "app",
    action: "remove",
    subject: app.name,
    page: "apps",
    heading: { key: "admin.confirm.app_remove_title" },
    consequence: { key: "admin.confirm.app_remove", values: { url: app.url } },
    facts: [
      { label: "account.name", value: app.name, code: true },
      { label: "admin.app_url", value: app.url, code: true },
    ],
    button: { key: "admin.remove_app" },
    post: console_url(idp, `${path}/remove`),
    fields: {},
    back: console_url(idp, path),
    refusal: null,
  };
}

export const AdminConsoleAppConfirmRequest = Fw.Request("AdminConsoleAppConfirmRequest", z.object({ action: z.literal("remove") }), { from: ["query"] });

export const AdminConsoleAppConfirm = (idp: Provider) =>
  class AdminConsoleAppConfirm extends Fw.Renderable(Fw.Endpoint(AdminConsoleAppConfirmRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/apps/:name/confirm`;

    async call() {
      const gate = await console_gate(idp, this, "manage_apps");
      if ("refused" in gate) return gate.refused;
      const app = await idp.store.get_protected_app(this.route_params.name ?? "");
      if (app === null) return no_such_app(idp, this, gate.admin);
      return this.view("admin/confirm", danger_values(idp, gate.admin, app_danger(idp, app)));
    }
  };
