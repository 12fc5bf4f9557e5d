/**
 * Version 28: custom user attributes (oidc/attributes/).
 *
 * - `user_attribute_definitions`: what the operator declared (`idp attributes add`): a name
 *   unique case-insensitively (`name_key`), its type, the scope that releases it, the claim name
 *   it is released under, and whether users edit it on the account page / must have it.
 * - `user_attribute_values`: one row per user and attribute holding a value, as JSON text. Both
 *   foreign keys cascade: deleting a user or a definition deletes its values.
 */
import type { Migration } from "./migration.ts";

function schema(int: string, bool: string, strict: string): string {
  return `
CREATE TABLE user_attribute_definitions (
  name_key TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  scope TEXT NOT NULL,
  claim TEXT NOT NULL,
  user_editable ${bool} NOT NULL,
  required ${bool} NOT NULL,
  created_at ${int} NOT NULL,
  updated_at ${int} NOT NULL
)${strict};

CREATE TABLE user_attribute_values (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name_key TEXT NOT NULL REFERENCES user_attribute_definitions(name_key) ON DELETE CASCADE,
  value TEXT NOT NULL,
  updated_at ${int} NOT NULL,
  PRIMARY KEY (user_id, name_key)
)${strict};
CREATE INDEX user_attribute_values_name_key ON user_attribute_values (name_key);
`;
}

export const user_attributes: Migration = {
  version: 28,
  name: "user attributes",
  sqlite: schema("INTEGER", "INTEGER", " STRICT"),
  postgres: schema("BIGINT", "BOOLEAN", ""),
};
