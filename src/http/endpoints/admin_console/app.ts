/**
 * GET /admin/apps/:name: a protected application: its URL, who may open it, its second-factor
 * requirement and its rules per path, whether browsers will bring the sign-in cookie to it
 * (IDP_FORWARD_AUTH_COOKIE_DOMAIN); the edit form (app_update.ts, with the ETag it was read at)
 * and the link to remove it (app_confirm.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, type ConsoleSession } from "../../../oidc/admin/console.ts";
import { etag_of } from "../../../oidc/admin/etag.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { ProtectedAppRow } from "../../../store/types.ts";
import { console_gate, console_notice, console_url, console_values, when } from "../../pages/admin_console.ts";
import { confirm_url } from "../../pages/admin_confirm.ts";
import { app_form_from, cookie_warning, no_such_app, type AppForm } from "./apps.ts";

export const AdminConsoleAppRequest = Fw.Request("AdminConsoleAppRequest", z.object({ done: z.string().max(64).optional() }), { from: ["query"] });

export function app_page(idp: Provider, admin: ConsoleSession, app: ProtectedAppRow, extra: { form?: AppForm; etag?: string; [key: string]: unknown } = {}) {
  const path = `/apps/${encodeURIComponent(app.name)}`;
  return console_values(idp, admin, "apps", app.name, {
    app: {
      name: app.name,
      url: app.url,
      groups: app.allowed_groups,
      require_2fa: app.require_2fa,
      rules: app.rules.map((rule) => ({ prefix: rule.prefix, groups: rule.groups, require_2fa: rule.require_2fa })),
      created: when(app.created_at),
      updated: when(app.updated_at),
    },
    cookie_warning: cookie_warning(idp, app),
    action: console_url(idp, path),
    remove_url: confirm_url(idp, path, "remove"),
    back: console_url(idp, "/apps"),
    form: app_form_from(app),
    etag: etag_of(app),
    ...extra,
  });
}

export const AdminConsoleApp = (idp: Provider) =>
  class AdminConsoleApp extends Fw.Renderable(Fw.Endpoint(AdminConsoleAppRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/apps/:name`;

    async call() {
      const gate = await console_gate(idp, this, "view_apps");
      if ("refused" in gate) return gate.refused;
      const app = await idp.store.get_protected_app(this.route_params.name ?? "");
      if (app === null) return no_such_app(idp, this, gate.admin);
      return this.view("admin/app", app_page(idp, gate.admin, app, { notice: console_notice(this.admin_console_app_request.done) }));
    }
  };
