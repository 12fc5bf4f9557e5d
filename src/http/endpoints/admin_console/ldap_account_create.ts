/**
 * POST /admin/ldap-accounts: makes a service account by the rules of `idp ldap service-accounts
 * add` (oidc/admin/ldap_service_accounts.ts) and shows its password on the answer page, once. A
 * refusal keeps the form as typed.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, check_console_csrf, record_console_event } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { add_service_account } from "../../../oidc/admin/ldap_service_accounts.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { invalid_form } from "../../errors.ts";
import { client_ip } from "../../middleware/proxy.ts";
import { console_gate, refusal_words } from "../../pages/admin_console.ts";
import { ldap_accounts_page, type LdapAccountForm } from "./ldap_accounts.ts";
import { ldap_secret_values } from "./ldap_account_secret.ts";

export const AdminConsoleLdapAccountCreateRequest = Fw.Request(
  "AdminConsoleLdapAccountCreateRequest",
  z.object({ csrf: z.string().max(256).optional(), name: z.string().max(256).optional(), group: z.string().max(256).optional() }),
  { from: ["body"], on_invalid: invalid_form },
);

export const AdminConsoleLdapAccountCreate = (idp: Provider) =>
  class AdminConsoleLdapAccountCreate extends Fw.Renderable(Fw.Endpoint(AdminConsoleLdapAccountCreateRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `POST ${ADMIN_CONSOLE}/ldap-accounts`;

    async call() {
      const gate = await console_gate(idp, this, "manage_ldap_accounts");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_ldap_account_create_request;
      check_console_csrf(gate.admin, input.csrf);
      const form: LdapAccountForm = { name: (input.name ?? "").trim(), group: (input.group ?? "").trim() };
      const ip = client_ip(this.context, idp.config);
      try {
        const made = await add_service_account(idp.store, { name: form.name, ...(form.group === "" ? {} : { group: form.group }) }, idp.now());
        await record_console_event(idp, gate.admin.user, ip, { action: "ldap_service_account_created", details: { name: made.account.name, group: made.account.group_name } });
        // The answer itself shows the password: never cached (console_gate), never in a URL.
        return this.view("admin/ldap_account_secret", ldap_secret_values(idp, gate.admin, made, false), 201);
      } catch (error) {
        const words = refusal_words(error);
        await record_console_event(idp, gate.admin.user, ip, { action: "ldap_service_account_created", outcome: "failure", details: { name: form.name } });
        const status = error instanceof AdminError && error.error === "conflict" ? 409 : 422;
        return this.view("admin/ldap_accounts", await ldap_accounts_page(idp, gate.admin, { error: words, form }), status);
      }
    }
  };
