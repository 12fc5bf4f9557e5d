/** Store types: the LDAP directory (oidc/ldap/): service accounts and POSIX numbers. The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds } from "./common.ts";

/** An application's account for binding to the directory: `cn=<name>,ou=services,<base>`. */
export type LdapServiceAccountRow = {
  /** As created; unique case-insensitively. */
  name: string;
  /** SHA-256 of the generated 256-bit password (ARCHITECTURE.md "Security at rest"). */
  secret_hash: string;
  /** Its searches see only the members of this group (and the group); null: the whole directory. */
  group_name: string | null;
  created_at: UnixSeconds;
  /** When the current password was made (`rotate` replaces it). */
  secret_created_at: UnixSeconds;
};

export type NewLdapServiceAccount = Pick<LdapServiceAccountRow, "name" | "secret_hash"> & Partial<Omit<LdapServiceAccountRow, "name" | "secret_hash">>;

/** A member of a group as the directory shows it: only active users are in the directory. */
export type DirectoryMembership = { group_id: string; group_name: string; user_id: string; username: string };

export interface LdapStore {
  /** Raises StoreConflictError when the name is taken (case-insensitively). */
  create_ldap_service_account(account: NewLdapServiceAccount): Promise<LdapServiceAccountRow>;
  /** Case-insensitive. */
  get_ldap_service_account(name: string): Promise<LdapServiceAccountRow | null>;
  /** Ordered by name, case-insensitively. */
  list_ldap_service_accounts(): Promise<LdapServiceAccountRow[]>;
  /** Replaces the password's hash; null when there is no such account. */
  set_ldap_service_account_secret(name: string, secret_hash: string, now: UnixSeconds): Promise<LdapServiceAccountRow | null>;
  /** False when there is no such account. */
  delete_ldap_service_account(name: string): Promise<boolean>;
  /**
   * The POSIX number (uidNumber of a user, gidNumber of a group) of each id, allocating the
   * missing ones once, in the order given: the next number above every number ever allocated,
   * and at least `first`. A number is never given to another id, not even after its owner was
   * deleted (files on disk keep their numbers). Concurrent calls never allocate one number twice.
   */
  ldap_posix_numbers(owner_ids: readonly string[], first: number): Promise<Record<string, number>>;
  /**
   * Memberships of active users (only they are in the directory), in no particular order: of
   * the groups `group_ids`, of the users `user_ids`, or every one when neither is given.
   */
  list_directory_memberships(query: { group_ids?: readonly string[]; user_ids?: readonly string[] }): Promise<DirectoryMembership[]>;
}
