/**
 * Version 26: the LDAP directory (oidc/ldap/).
 *
 * - `ldap_service_accounts`: the accounts applications bind with (`idp ldap service-accounts`),
 *   a name unique case-insensitively (`name_key`), the SHA-256 of a generated 256-bit password,
 *   and optionally the name of the one group whose members its searches see. A group name, not
 *   a reference: deleting the group leaves the account seeing nothing, never everything.
 * - `ldap_posix_ids`: the uidNumber of a user or gidNumber of a group (IDP_LDAP_POSIX), given
 *   once and kept after its owner is deleted, so no number ever passes to someone else (files on
 *   disk keep their owner's number). No foreign key: an owner is a user or a group.
 */
import type { Migration } from "./migration.ts";

function schema(int: string, strict: string): string {
  return `
CREATE TABLE ldap_service_accounts (
  name_key TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  group_name TEXT,
  created_at ${int} NOT NULL,
  secret_created_at ${int} NOT NULL
)${strict};

CREATE TABLE ldap_posix_ids (
  owner_id TEXT PRIMARY KEY,
  number ${int} NOT NULL UNIQUE,
  created_at ${int} NOT NULL
)${strict};
`;
}

export const ldap: Migration = {
  version: 26,
  name: "ldap directory",
  sqlite: schema("INTEGER", " STRICT"),
  postgres: schema("BIGINT", ""),
};
