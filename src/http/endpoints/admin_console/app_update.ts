/**
 * POST /admin/apps/:name: saves the edit form by the rules of `idp apps update` (oidc/admin/apps.ts):
 * the URL, the groups, the second factor and the rules (the lines replace every rule). The form
 * carries the ETag it was read at (oidc/admin/etag.ts): a change made since by someone else is
 * not overwritten.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { update_app } from "../../../oidc/admin/apps.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { check_if_match, etag_of } from "../../../oidc/admin/etag.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, refusal_words } from "../../pages/admin_console.ts";
import { APP_FORM_FIELDS, app_form_of, app_input_of, no_such_app } from "./apps.ts";
import { app_page } from "./app.ts";

export const AdminConsoleAppUpdateRequest = Fw.Request("AdminConsoleAppUpdateRequest", z.object({ ...APP_FORM_FIELDS, etag: z.string().max(64).optional() }), {
  from: ["body"],
  on_invalid: invalid_form,
});

export const AdminConsoleAppUpdate = (idp: Provider) =>
  class AdminConsoleAppUpdate extends Fw.Renderable(Fw.Endpoint(AdminConsoleAppUpdateRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/apps/:name`;

    async call() {
      const gate = await console_gate(idp, this, "manage_apps");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_app_update_request;
      check_console_csrf(gate.admin, input.csrf);
      const app = await idp.store.get_protected_app(this.route_params.name ?? "");
      if (app === null) return no_such_app(idp, this, gate.admin);
      const form = app_form_of(input, app.name);
      const ip = client_ip(this.context, idp.config);
      try {
        check_if_match(input.etag === undefined || input.etag === "" ? null : input.etag, etag_of(app));
        const updated = await update_app(idp.store, app.name, app_input_of(form), idp.now());
        await record_console_event(idp, gate.admin.user, ip, { action: "protected_app_updated", details: { app: updated.name, url: updated.url } });
        return this.redirect_to(`${console_url(idp, `/apps/${encodeURIComponent(app.name)}`)}?done=app_updated`, 303);
      } catch (error) {
        const words = refusal_words(error);
        await record_console_event(idp, gate.admin.user, ip, { action: "protected_app_updated", outcome: "failure", details: { app: app.name } });
        const code = error instanceof AdminError ? error.error : "";
        const status = code === "conflict" || code === "precondition_failed" ? 409 : 422;
        return this.view("admin/app", app_page(idp, gate.admin, app, { error: words, form, etag: input.etag ?? "" }), status);
      }
    }
  };
