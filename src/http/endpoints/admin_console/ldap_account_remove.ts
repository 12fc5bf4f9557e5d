/**
 * POST /admin/ldap-accounts/remove: removes a service account (the rule of `idp ldap
 * service-accounts remove`): its next bind fails. Only from its confirmation page
 * (ldap_account_confirm.ts: its own form token, bound to the account, and re-authentication).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, record_console_event } from "../../../oidc/admin/console.ts";
import { remove_service_account } from "../../../oidc/admin/ldap_service_accounts.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, console_url, refusal_words } from "../../pages/admin_console.ts";
import { confirmation_problem, danger_values } from "../../pages/admin_confirm.ts";
import { no_such_ldap_account } from "./ldap_accounts.ts";
import { ldap_account_danger } from "./ldap_account_confirm.ts";

export const AdminConsoleLdapAccountRemoveRequest = Fw.Request(
  "AdminConsoleLdapAccountRemoveRequest",
  z.object({ csrf: z.string().max(256).optional(), name: z.string().max(256), password: z.string().max(4096).optional() }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleLdapAccountRemove = (idp: Provider) =>
  class AdminConsoleLdapAccountRemove extends Fw.Renderable(Fw.Endpoint(AdminConsoleLdapAccountRemoveRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/ldap-accounts/remove`;

    async call() {
      const gate = await console_gate(idp, this, "manage_ldap_accounts");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_ldap_account_remove_request;
      const account = await idp.store.get_ldap_service_account(input.name);
      if (account === null) return no_such_ldap_account(idp, this, gate.admin);
      const ip = client_ip(this.context, idp.config);
      const danger = ldap_account_danger(idp, account, "remove");
      const problem = await confirmation_problem(idp, gate.admin, danger, input, ip);
      if (problem !== null) {
        await record_console_event(idp, gate.admin.user, ip, {
          action: "ldap_service_account_removed",
          outcome: "failure",
          details: { name: account.name, reason: "reauthentication" },
        });
        return this.view("admin/confirm", danger_values(idp, gate.admin, danger, { error: problem }), 403);
      }
      try {
        await remove_service_account(idp.store, account.name);
        await record_console_event(idp, gate.admin.user, ip, { action: "ldap_service_account_removed", details: { name: account.name } });
        return this.redirect_to(`${console_url(idp, "/ldap-accounts")}?done=ldap_account_removed`, 303);
      } catch (error) {
        return this.view("admin/confirm", danger_values(idp, gate.admin, { ...danger, refusal: refusal_words(error) }), 409);
      }
    }
  };
