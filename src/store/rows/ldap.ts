/**
 * Rows of `ldap_service_accounts`: the column spec (codec.ts encodes and decodes by it) and the
 * builder that completes a new row, shared by both adapters. `name_key`, the unique lookup key,
 * is the adapters' own and never reaches a row.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { LdapServiceAccountRow, NewLdapServiceAccount } from "../types.ts";

/** The columns of `ldap_service_accounts`. */
export const ldap_service_account_spec: TableSpec<LdapServiceAccountRow> = {
  name: "text",
  secret_hash: "text",
  group_name: "text",
  created_at: "int",
  secret_created_at: "int",
};

/** Equal keys are the same account (names are ASCII: oidc/admin/ldap_service_accounts.ts). */
export function service_account_key(name: string): string {
  return name.toLowerCase();
}

/** The complete row of a new service account. */
export function ldap_service_account_row(input: NewLdapServiceAccount): LdapServiceAccountRow {
  const created = input.created_at ?? now_seconds();
  return {
    name: input.name,
    secret_hash: input.secret_hash,
    group_name: input.group_name ?? null,
    created_at: created,
    secret_created_at: input.secret_created_at ?? created,
  };
}

/** How many ids one IN list of the directory's queries holds at most. */
export const ID_BATCH = 500;

/** `ids` in batches of ID_BATCH. */
export function batches<T>(ids: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < ids.length; i += ID_BATCH) out.push(ids.slice(i, i + ID_BATCH));
  return out;
}
