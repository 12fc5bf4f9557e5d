/** PostgreSQL: what SCIM provisioning keeps beside users and groups (migration 030). */
import type { PgSql } from "./driver.ts";
import { decode_or_null, encode_postgres } from "../codec.ts";
import { scim_group_spec, scim_token_spec, scim_user_spec } from "../rows/scim.ts";
import type { ScimStore } from "../types.ts";

export function pg_scim(sql: PgSql): ScimStore {
  return {
    async create_scim_token(row) {
      await sql`INSERT INTO scim_tokens ${sql(encode_postgres(scim_token_spec, row))}`;
    },
    async get_scim_token_by_hash(token_hash) {
      const [raw] = await sql`SELECT * FROM scim_tokens WHERE token_hash = ${token_hash}`;
      return decode_or_null(scim_token_spec, raw);
    },
    async list_scim_tokens() {
      const rows: unknown[] = await sql`SELECT * FROM scim_tokens ORDER BY name`;
      return rows.map((raw) => decode_or_null(scim_token_spec, raw)!);
    },
    async revoke_scim_token(name, now) {
      const rows: unknown[] = await sql`UPDATE scim_tokens SET revoked_at = ${now} WHERE name = ${name} AND revoked_at IS NULL RETURNING name`;
      return rows.length > 0;
    },
    async get_scim_user(user_id) {
      const [raw] = await sql`SELECT * FROM scim_users WHERE user_id = ${user_id}`;
      return decode_or_null(scim_user_spec, raw);
    },
    async put_scim_user(row) {
      await sql`INSERT INTO scim_users ${sql(encode_postgres(scim_user_spec, row))}
        ON CONFLICT (user_id) DO UPDATE SET external_id = excluded.external_id, enterprise = excluded.enterprise, updated_at = excluded.updated_at`;
    },
    async find_scim_users_by_external_id(external_id) {
      const rows: { user_id: string }[] = await sql`SELECT user_id FROM scim_users WHERE external_id = ${external_id} ORDER BY updated_at, user_id`;
      return rows.map((row) => row.user_id);
    },
    async get_scim_group(group_id) {
      const [raw] = await sql`SELECT * FROM scim_groups WHERE group_id = ${group_id}`;
      return decode_or_null(scim_group_spec, raw);
    },
    async put_scim_group(row) {
      await sql`INSERT INTO scim_groups ${sql(encode_postgres(scim_group_spec, row))}
        ON CONFLICT (group_id) DO UPDATE SET external_id = excluded.external_id, display_name = excluded.display_name, updated_at = excluded.updated_at`;
    },
    async find_scim_groups_by_external_id(external_id) {
      const rows: { group_id: string }[] = await sql`SELECT group_id FROM scim_groups WHERE external_id = ${external_id} ORDER BY updated_at, group_id`;
      return rows.map((row) => row.group_id);
    },
  };
}
