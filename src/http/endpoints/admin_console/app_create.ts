/** POST /admin/apps: adds a protected application by the rules of `idp apps add` (oidc/admin/apps.ts); a refusal keeps the form as typed. */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { create_app } from "../../../oidc/admin/apps.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, refusal_words } from "../../pages/admin_console.ts";
import { APP_FORM_FIELDS, app_form_of, app_input_of, apps_page } from "./apps.ts";

export const AdminConsoleAppCreateRequest = Fw.Request("AdminConsoleAppCreateRequest", z.object({ ...APP_FORM_FIELDS, name: z.string().max(256).optional() }), {
  from: ["body"],
  on_invalid: invalid_form,
});

export const AdminConsoleAppCreate = (idp: Provider) =>
  class AdminConsoleAppCreate extends Fw.Renderable(Fw.Endpoint(AdminConsoleAppCreateRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/apps`;

    async call() {
      const gate = await console_gate(idp, this, "manage_apps");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_app_create_request;
      check_console_csrf(gate.admin, input.csrf);
      const form = app_form_of(input, input.name);
      const ip = client_ip(this.context, idp.config);
      try {
        const app = await create_app(idp.store, form.name, app_input_of(form), idp.now());
        await record_console_event(idp, gate.admin.user, ip, { action: "protected_app_created", details: { app: app.name, url: app.url } });
        return this.redirect_to(`${console_url(idp, `/apps/${encodeURIComponent(app.name)}`)}?done=app_created`, 303);
      } catch (error) {
        const words = refusal_words(error);
        await record_console_event(idp, gate.admin.user, ip, { action: "protected_app_created", outcome: "failure", details: { app: form.name } });
        const status = error instanceof AdminError && error.error === "conflict" ? 409 : 422;
        return this.view("admin/apps", await apps_page(idp, gate.admin, { error: words, form }), status);
      }
    }
  };
