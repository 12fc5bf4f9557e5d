/**
 * Version 30: what SCIM 2.0 provisioning (oidc/scim/) keeps beside users and groups.
 * - `scim_users`: a user's `externalId` (RFC 7643 §3.1, the provisioning client's own id) and
 *   the enterprise extension's values (RFC 7643 §4.3) without a custom attribute of
 *   the same name as one JSON object (oidc/scim/enterprise.ts).
 * - `scim_groups`: a group's `externalId` and its SCIM `displayName` as sent (our group names
 *   follow store/group_names.ts, which a display name such as "Sales Team" does not).
 * Both rows go with their user or group (ON DELETE CASCADE); the external ids are indexed: the
 * provisioning clients look their objects up by them (`externalId eq "…"`).
 *
 * 028 and 029 are taken by changes made at the same time as this one.
 */
import type { Migration } from "./migration.ts";

function schema(int: string, json: string, strict: string): string {
  return `
CREATE TABLE scim_users (
  user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  external_id TEXT,
  enterprise ${json} NOT NULL,
  updated_at ${int} NOT NULL
)${strict};
CREATE INDEX scim_users_external_id ON scim_users (external_id);

CREATE TABLE scim_groups (
  group_id TEXT PRIMARY KEY REFERENCES groups(id) ON DELETE CASCADE,
  external_id TEXT,
  display_name TEXT NOT NULL,
  updated_at ${int} NOT NULL
)${strict};
CREATE INDEX scim_groups_external_id ON scim_groups (external_id);
`;
}

export const scim: Migration = {
  version: 30,
  name: "scim",
  sqlite: schema("INTEGER", "TEXT", " STRICT"),
  postgres: schema("BIGINT", "JSONB", ""),
};
