/**
 * GET /admin/ldap-accounts: the LDAP directory's service accounts (the accounts applications
 * bind with, `cn=<name>,ou=services,<base>`), each with its bind DN, the group its searches see
 * and when its password was made, never the password (only its SHA-256 is stored); the links to
 * rotate or remove one (ldap_account_confirm.ts) and the form to add one (ldap_account_create.ts),
 * by the rules of `idp ldap service-accounts` (oidc/admin/ldap_service_accounts.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE, type ConsoleSession } from "../../../oidc/admin/console.ts";
import { SERVICE_NAME_RULE } from "../../../oidc/admin/ldap_service_accounts.ts";
import { service_dn, tree_of } from "../../../oidc/ldap/tree.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { console_gate, console_notice, console_url, console_values, when, type ConsoleEndpoint } from "../../pages/admin_console.ts";
import { confirm_url } from "../../pages/admin_confirm.ts";

export const AdminConsoleLdapAccountsRequest = Fw.Request("AdminConsoleLdapAccountsRequest", z.object({ done: z.string().max(64).optional() }), { from: ["query"] });

/** The add form as typed: kept when the rules refuse it. */
export type LdapAccountForm = { name: string; group: string };

export async function ldap_accounts_page(idp: Provider, admin: ConsoleSession, extra: Record<string, unknown> = {}) {
  const tree = tree_of(idp.config);
  const accounts = (await idp.store.list_ldap_service_accounts()).map((account) => ({
    name: account.name,
    bind_dn: service_dn(tree, account.name),
    group: account.group_name,
    created: when(account.created_at),
    password_created: when(account.secret_created_at),
    // Both are confirmed on their own page: a rotation breaks the application until it has the new password.
    rotate_url: confirm_url(idp, "/ldap-accounts", "rotate", { name: account.name }),
    remove_url: confirm_url(idp, "/ldap-accounts", "remove", { name: account.name }),
  }));
  return console_values(idp, admin, "ldap_accounts", "LDAP service accounts", {
    accounts,
    groups: (await idp.store.list_groups()).map((group) => group.name),
    name_rule: SERVICE_NAME_RULE,
    listening: idp.config.ldap.listen !== undefined || idp.config.ldap.ldaps_listen !== undefined,
    form: { name: "", group: "" } satisfies LdapAccountForm,
    ...extra,
  });
}

/** The 404 page of an account that does not exist (any more). */
export function no_such_ldap_account(idp: Provider, endpoint: Pick<ConsoleEndpoint, "view">, admin: ConsoleSession) {
  return endpoint.view(
    "message",
    {
      ...console_values(idp, admin, "ldap_accounts", "No such service account"),
      message: "This service account does not exist (any more).",
      link: { href: console_url(idp, "/ldap-accounts"), text: "Back to the LDAP service accounts" },
      form: null,
    },
    404,
  );
}

export const AdminConsoleLdapAccounts = (idp: Provider) =>
  class AdminConsoleLdapAccounts extends Fw.Renderable(Fw.Endpoint(AdminConsoleLdapAccountsRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/ldap-accounts`;

    async call() {
      const gate = await console_gate(idp, this, "view_ldap_accounts");
      if ("refused" in gate) return gate.refused;
      return this.view("admin/ldap_accounts", await ldap_accounts_page(idp, gate.admin, { notice: console_notice(this.admin_console_ldap_accounts_request.done) }));
    }
  };
