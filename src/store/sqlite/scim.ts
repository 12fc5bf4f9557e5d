/** SQLite: what SCIM provisioning keeps beside users and groups (migration 030). */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { decode_or_null, encode_sqlite } from "../codec.ts";
import { scim_group_spec, scim_user_spec } from "../rows/scim.ts";
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
  return {
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
