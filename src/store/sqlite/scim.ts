/** SQLite: what SCIM provisioning keeps beside users and groups (migration 030). */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { decode_or_null, encode_sqlite } from "../codec.ts";
import { scim_group_spec, scim_token_spec, scim_user_spec } from "../rows/scim.ts";
import type { ScimStore } from "../types.ts";

export function sqlite_scim(db: SqliteDatabase): Sync<ScimStore> {
  const user = db.prepare("SELECT * FROM scim_users WHERE user_id = $user_id");
  const put_user = db.prepare(
    `INSERT INTO scim_users (user_id, external_id, enterprise, updated_at) VALUES ($user_id, $external_id, $enterprise, $updated_at)
     ON CONFLICT (user_id) DO UPDATE SET external_id = excluded.external_id, enterprise = excluded.enterprise, updated_at = excluded.updated_at`,
  );
  const users_by_external = db.prepare("SELECT user_id FROM scim_users WHERE external_id = $external_id ORDER BY rowid");
  const group = db.prepare("SELECT * FROM scim_groups WHERE group_id = $group_id");
  const put_group = db.prepare(
    `INSERT INTO scim_groups (group_id, external_id, display_name, updated_at) VALUES ($group_id, $external_id, $display_name, $updated_at)
     ON CONFLICT (group_id) DO UPDATE SET external_id = excluded.external_id, display_name = excluded.display_name, updated_at = excluded.updated_at`,
  );
  const groups_by_external = db.prepare("SELECT group_id FROM scim_groups WHERE external_id = $external_id ORDER BY rowid");
  const insert_token = db.prepare(
    "INSERT INTO scim_tokens (name, token_hash, created_at, expires_at, revoked_at) VALUES ($name, $token_hash, $created_at, $expires_at, $revoked_at)",
  );
  const token_by_hash = db.prepare("SELECT * FROM scim_tokens WHERE token_hash = $token_hash");
  const tokens = db.prepare("SELECT * FROM scim_tokens ORDER BY name");
  const revoke_token = db.prepare("UPDATE scim_tokens SET revoked_at = $now WHERE name = $name AND revoked_at IS NULL");
  return {
    create_scim_token(row) {
      insert_token.run(encode_sqlite(scim_token_spec, row));
    },
    get_scim_token_by_hash(token_hash) {
      return decode_or_null(scim_token_spec, token_by_hash.get({ token_hash }));
    },
    list_scim_tokens() {
      return tokens.all().map((raw) => decode_or_null(scim_token_spec, raw)!);
    },
    revoke_scim_token(name, now) {
      return revoke_token.run({ name, now }).changes > 0;
    },
    get_scim_user(user_id) {
      return decode_or_null(scim_user_spec, user.get({ user_id }));
    },
    put_scim_user(row) {
      put_user.run(encode_sqlite(scim_user_spec, row));
    },
    find_scim_users_by_external_id(external_id) {
      return (users_by_external.all({ external_id }) as { user_id: string }[]).map((row) => row.user_id);
    },
    get_scim_group(group_id) {
      return decode_or_null(scim_group_spec, group.get({ group_id }));
    },
    put_scim_group(row) {
      put_group.run(encode_sqlite(scim_group_spec, row));
    },
    find_scim_groups_by_external_id(external_id) {
      return (groups_by_external.all({ external_id }) as { group_id: string }[]).map((row) => row.group_id);
    },
  };
}
