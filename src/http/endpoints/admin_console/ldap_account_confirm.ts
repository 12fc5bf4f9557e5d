/**
 * GET /admin/ldap-accounts/confirm?action=rotate|remove&name=…: the confirmation page
 * (http/pages/admin_confirm.ts) of a new password for a service account (the old one stops
 * working at once: the application binding with it fails until it gets the new one) or of its
 * removal. Its form posts to /admin/ldap-accounts/rotate or /remove.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import { service_dn, tree_of } from "../../../oidc/ldap/tree.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { LdapServiceAccountRow } from "../../../store/types.ts";
import { console_gate, console_url, when } from "../../pages/admin_console.ts";
import { danger_values, type Danger } from "../../pages/admin_confirm.ts";
import { no_such_ldap_account } from "./ldap_accounts.ts";

export type LdapAccountAction = "rotate" | "remove";

export function ldap_account_danger(idp: Provider, account: LdapServiceAccountRow, action: LdapAccountAction): Danger {
  const bind_dn = service_dn(tree_of(idp.config), account.name);
  return {
    kind: "ldap_account",
    action,
    subject: account.name,
    page: "ldap_accounts",
    heading: { key: action === "rotate" ? "admin.confirm.ldap_rotate_title" : "admin.confirm.ldap_remove_title" },
    consequence: { key: action === "rotate" ? "admin.confirm.ldap_rotate" : "admin.confirm.ldap_remove", values: { dn: bind_dn } },
    facts: [
      { label: "admin.bind_dn", value: bind_dn, code: true },
      { label: "admin.ldap_group", value: account.group_name ?? "—" },
      { label: "admin.password_made", value: when(account.secret_created_at) },
    ],
    button: { key: action === "rotate" ? "admin.ldap_rotate" : "admin.ldap_remove" },
    post: console_url(idp, `/ldap-accounts/${action}`),
    fields: { name: account.name },
    back: console_url(idp, "/ldap-accounts"),
    refusal: null,
  };
}

export const AdminConsoleLdapAccountConfirmRequest = Fw.Request(
  "AdminConsoleLdapAccountConfirmRequest",
  z.object({ action: z.enum(["rotate", "remove"]), name: z.string().max(256) }),
  { from: ["query"] },
);

export const AdminConsoleLdapAccountConfirm = (idp: Provider) =>
  class AdminConsoleLdapAccountConfirm extends Fw.Renderable(Fw.Endpoint(AdminConsoleLdapAccountConfirmRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/ldap-accounts/confirm`;

    async call() {
      const gate = await console_gate(idp, this, "manage_ldap_accounts");
      if ("refused" in gate) return gate.refused;
      const { action, name } = this.admin_console_ldap_account_confirm_request;
      const account = await idp.store.get_ldap_service_account(name);
      if (account === null) return no_such_ldap_account(idp, this, gate.admin);
      return this.view("admin/confirm", danger_values(idp, gate.admin, ldap_account_danger(idp, account, action)));
    }
  };
