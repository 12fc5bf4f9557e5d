/**
 * POST /admin/ldap-accounts/rotate: a new password for a service account (the rule of `idp ldap
 * service-accounts rotate`), shown once on the answer page; the old one stops working at once.
 * Only from its confirmation page (ldap_account_confirm.ts: its own form token, bound to the
 * account, and re-authentication).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, record_console_event } from "../../../oidc/admin/console.ts";
import { rotate_service_account } from "../../../oidc/admin/ldap_service_accounts.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, refusal_words } from "../../pages/admin_console.ts";
import { confirmation_problem, danger_values } from "../../pages/admin_confirm.ts";
import { no_such_ldap_account } from "./ldap_accounts.ts";
import { ldap_account_danger } from "./ldap_account_confirm.ts";
import { ldap_secret_values } from "./ldap_account_secret.ts";

export const AdminConsoleLdapAccountRotateRequest = Fw.Request(
  "AdminConsoleLdapAccountRotateRequest",
  z.object({ csrf: z.string().max(256).optional(), name: z.string().max(256), password: z.string().max(4096).optional() }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleLdapAccountRotate = (idp: Provider) =>
  class AdminConsoleLdapAccountRotate extends Fw.Renderable(Fw.Endpoint(AdminConsoleLdapAccountRotateRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/ldap-accounts/rotate`;

    async call() {
      const gate = await console_gate(idp, this, "manage_ldap_accounts");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_ldap_account_rotate_request;
      const account = await idp.store.get_ldap_service_account(input.name);
      if (account === null) return no_such_ldap_account(idp, this, gate.admin);
      const ip = client_ip(this.context, idp.config);
      const danger = ldap_account_danger(idp, account, "rotate");
      const problem = await confirmation_problem(idp, gate.admin, danger, input, ip);
      if (problem !== null) {
        await record_console_event(idp, gate.admin.user, ip, {
          action: "ldap_service_account_rotated",
          outcome: "failure",
          details: { name: account.name, reason: "reauthentication" },
        });
        return this.view("admin/confirm", danger_values(idp, gate.admin, danger, { error: problem }), 403);
      }
      try {
        const made = await rotate_service_account(idp.store, account.name, idp.now());
        await record_console_event(idp, gate.admin.user, ip, { action: "ldap_service_account_rotated", details: { name: account.name } });
        return this.view("admin/ldap_account_secret", ldap_secret_values(idp, gate.admin, made, true));
      } catch (error) {
        return this.view("admin/confirm", danger_values(idp, gate.admin, { ...danger, refusal: refusal_words(error) }), 409);
      }
    }
  };
