/**
 * The admin API's representations of LDAP service accounts (zod): what every answer shows (the
 * bind DN, the group its searches see, when its password was made), never a password's hash.
 * The password itself only in the answers that make one (create, rotate), once. Rules in
 * oidc/admin/ldap_service_accounts.ts, the same `idp ldap service-accounts` applies.
 */
import { z } from "zod";
import { not_found } from "../../../../oidc/admin/errors.ts";
import { service_dn, tree_of } from "../../../../oidc/ldap/tree.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import type { LdapServiceAccountRow } from "../../../../store/types.ts";
import { ADMIN_API } from "../common.ts";

export const LDAP_ACCOUNTS_API = `${ADMIN_API}/ldap/service-accounts`;

const time = z.number().int().describe("Unix seconds");

export const LdapServiceAccountSchema = z
  .object({
    name: z.string(),
    bind_dn: z.string(),
    group: z.string().nullable().describe("its searches see only this group's members (and the group); null: the whole directory"),
    created_at: time,
    password_created_at: time,
  })
  .meta({ id: "LdapServiceAccount" });

export const LdapServiceAccountSecretSchema = z
  .object({
    ...LdapServiceAccountSchema.shape,
    password: z.string().describe("the bind password, in this answer only: it is stored as its SHA-256"),
  })
  .meta({ id: "LdapServiceAccountWithPassword" });

export const LdapServiceAccountCreateSchema = z
  .strictObject({
    name: z.string().min(1).max(64),
    group: z.string().min(1).max(256).optional().describe("its searches see only this group's members (the group must exist)"),
  })
  .meta({ id: "LdapServiceAccountCreate" });

export type LdapServiceAccountView = z.infer<typeof LdapServiceAccountSchema>;

export function service_account_view(idp: Pick<Provider, "config">, account: LdapServiceAccountRow): LdapServiceAccountView {
  return {
    name: account.name,
    bind_dn: service_dn(tree_of(idp.config), account.name),
    group: account.group_name,
    created_at: account.created_at,
    password_created_at: account.secret_created_at,
  };
}

export async function service_account_of(idp: Provider, name: string): Promise<LdapServiceAccountRow> {
  const account = await idp.store.get_ldap_service_account(name);
  if (account === null) throw not_found("service account", name);
  return account;
}
