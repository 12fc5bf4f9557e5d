/**
 * POST /admin/settings/test-mail: queues the test message `idp mail test` sends, to the
 * administrator's own address, through the outbox (the mail worker delivers it). Refused, with
 * the settings page and its words, when mail is off or the administrator has no address.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf } from "../../../oidc/admin/console.ts";
import { send_test_mail } from "../../../oidc/admin/overview.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate } from "../../pages/admin_console.ts";
import { settings_page } from "./settings.ts";

export const AdminConsoleTestMailRequest = Fw.Request("AdminConsoleTestMailRequest", z.object({ csrf: z.string().max(256).optional() }), {
  from: ["body"],
  on_invalid: invalid_form,
});

export const TEST_MAIL_WORDS = {
  sent: "The test message is in the outbox, on its way to your address.",
  mail_off: "Mail is off (production mode without IDP_SMTP_URL): no test message was sent. Set IDP_SMTP_URL and IDP_MAIL_FROM to turn it on.",
  no_address: "Your account has no e-mail address: no test message was sent. Add one on your account page.",
} as const;

export const AdminConsoleTestMail = (idp: Provider) =>
  class AdminConsoleTestMail extends Fw.Renderable(Fw.Endpoint(AdminConsoleTestMailRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/settings/test-mail`;

    async call() {
      const gate = await console_gate(idp, this, "send_test_mail");
      if ("refused" in gate) return gate.refused;
      check_console_csrf(gate.admin, this.admin_console_test_mail_request.csrf);
      const outcome = await send_test_mail(idp, gate.admin.user, client_ip(this.context, idp.config));
      if ("refused" in outcome) return this.view("admin/settings", await settings_page(idp, gate.admin, { error: TEST_MAIL_WORDS[outcome.refused] }), 409);
      return this.view("admin/settings", await settings_page(idp, gate.admin, { notice: TEST_MAIL_WORDS.sent }));
    }
  };
