/**
 * Administering the directory's service accounts (`idp ldap service-accounts`, src/cli/ldap.ts):
 * the accounts applications bind with (`cn=<name>,ou=services,<base>`). Each password is 256
 * random bits, shown once and stored as its SHA-256 (ARCHITECTURE.md "Security at rest"): a
 * stolen database gives nobody a working password, and guessing one is hopeless. `--group`
 * limits what the account's searches see to that group's members (ldap/directory.ts).
 */
import { random_token, sha256 } from "../crypto/secrets.ts";
import { AdminError, invalid_field, not_found } from "./errors.ts";
import { StoreConflictError, type LdapServiceAccountRow, type Store } from "../../store/types.ts";

/** ASCII, no character a DN must escape (RFC 4514 §2.4): the bind DN reads as typed. */
const SERVICE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const SERVICE_NAME_RULE = "1 to 64 ASCII letters, digits or . _ - (starting with a letter or digit)";

export type NewServiceAccount = { account: LdapServiceAccountRow; password: string };

export async function add_service_account(store: Store, input: { name: string; group?: string | undefined }, now: number): Promise<NewServiceAccount> {
  if (!SERVICE_NAME.test(input.name)) throw invalid_field("name", `"${input.name}" is not valid: use ${SERVICE_NAME_RULE}`);
  let group_name: string | null = null;
  if (input.group !== undefined) {
    const group = await store.get_group_by_name(input.group);
    if (group === null) throw not_found("group", input.group);
    group_name = group.name;
  }
  const password = random_token(32);
  const taken = () => new AdminError("conflict", `service account ${input.name} exists already`, [{ field: "name", message: "is taken" }]);
  if ((await store.get_ldap_service_account(input.name)) !== null) throw taken();
  try {
    const account = await store.create_ldap_service_account({ name: input.name, secret_hash: sha256(password), group_name, created_at: now });
    return { account, password };
  } catch (error) {
    if (error instanceof StoreConflictError) throw taken();
    throw error;
  }
}

/** A new password for the account; the old one stops working at once. */
export async function rotate_service_account(store: Store, name: string, now: number): Promise<NewServiceAccount> {
  const password = random_token(32);
  const account = await store.set_ldap_service_account_secret(name, sha256(password), now);
  if (account === null) throw not_found("service account", name);
  return { account, password };
}

/** Removes the account: its next bind fails, and a session bound with it sees nothing from its next request (ldap/directory.ts view_of). */
export async function remove_service_account(store: Store, name: string): Promise<void> {
  if (!(await store.delete_ldap_service_account(name))) throw not_found("service account", name);
}
