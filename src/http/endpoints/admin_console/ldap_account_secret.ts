/**
 * The page that shows a service account's password, once (views/admin/ldap_account_secret.eta):
 * after the account is made (ldap_account_create.ts) or its password rotated
 * (ldap_account_rotate.ts). Only its SHA-256 is stored: nobody can show it again.
 */
import type { ConsoleSession } from "../../../oidc/admin/console.ts";
import type { NewServiceAccount } from "../../../oidc/admin/ldap_service_accounts.ts";
import { service_dn, tree_of } from "../../../oidc/ldap/tree.ts";
import type { Provider } from "../../../oidc/provider.ts";
import { console_url, console_values } from "../../pages/admin_console.ts";

export function ldap_secret_values(idp: Provider, admin: ConsoleSession, made: NewServiceAccount, rotated: boolean): Record<string, unknown> {
  return {
    ...console_values(idp, admin, "ldap_accounts", rotated ? "New password" : "Service account created"),
    name: made.account.name,
    bind_dn: service_dn(tree_of(idp.config), made.account.name),
    group: made.account.group_name,
    password: made.password,
    rotated,
    back: console_url(idp, "/ldap-accounts"),
  };
}
