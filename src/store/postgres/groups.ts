/** PostgreSQL: groups of users and their members. */
import type { PgSql } from "./driver.ts";
import { decode, decode_or_null } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { group_row, group_spec } from "../rows/groups.ts";
import { group_name_key } from "../group_names.ts";
import type { GroupMember, GroupStore } from "../types.ts";

export function pg_groups(sql: PgSql): GroupStore {
  return {
    async create_group(input) {
      const row = group_row(input);
      await sql`INSERT INTO groups ${sql({ ...row, name_key: group_name_key(row.name) })}`;
      return row;
    },
    async get_group_by_name(name) {
      const [raw] = await sql`SELECT * FROM groups WHERE name_key = ${group_name_key(name)}`;
      return decode_or_null(group_spec, raw);
    },
    async get_group_by_id(id) {
      const [raw] = await sql`SELECT * FROM groups WHERE id = ${id}`;
      return decode_or_null(group_spec, raw);
    },
    async rename_group(id, name, description) {
      const checked = group_row({ name, description: description ?? null });
      const [raw] =
        description === undefined
          ? await sql`UPDATE groups SET name = ${checked.name}, name_key = ${group_name_key(checked.name)} WHERE id = ${id} RETURNING *`
          : await sql`UPDATE groups SET name = ${checked.name}, name_key = ${group_name_key(checked.name)}, description = ${checked.description} WHERE id = ${id} RETURNING *`;
      return decode_or_null(group_spec, raw);
    },
    async list_groups() {
      const rows: { members: string | number }[] = await sql`
        SELECT g.*, (SELECT count(*) FROM group_members m WHERE m.group_id = g.id) AS members
        FROM groups g ORDER BY g.name_key`;
      return rows.map((raw) => ({ ...decode(group_spec, raw), members: Number(raw.members) }));
    },
    async delete_group(id) {
      const result = await sql`DELETE FROM groups WHERE id = ${id}`;
      return result.count > 0;
    },
    async add_group_member(group_id, user_id, now) {
      const result = await sql`
        INSERT INTO group_members (group_id, user_id, created_at) VALUES (${group_id}, ${user_id}, ${now ?? now_seconds()})
        ON CONFLICT (group_id, user_id) DO NOTHING`;
      return result.count > 0;
    },
    async remove_group_member(group_id, user_id) {
      const result = await sql`DELETE FROM group_members WHERE group_id = ${group_id} AND user_id = ${user_id}`;
      return result.count > 0;
    },
    async list_group_members(group_id) {
      const rows: { user_id: string; username: string; added_at: string | number }[] = await sql`
        SELECT m.user_id, u.username, m.created_at AS added_at FROM group_members m JOIN users u ON u.id = m.user_id
        WHERE m.group_id = ${group_id} ORDER BY u.username_key`;
      return rows.map((row): GroupMember => ({ user_id: row.user_id, username: row.username, added_at: Number(row.added_at) }));
    },
    async list_user_groups(user_id) {
      const rows: { name: string }[] = await sql`
        SELECT g.name FROM group_members m JOIN groups g ON g.id = m.group_id WHERE m.user_id = ${user_id} ORDER BY g.name_key`;
      return rows.map((row) => row.name);
    },
    async sync_upstream_group_members(upstream, user_id, group_ids, now) {
      const at = now ?? now_seconds();
      const wanted = [...new Set(group_ids)];
      return await sql.begin(async (tx) => {
        const marked: { group_id: string; name: string }[] = await tx`
          SELECT m.group_id, g.name FROM group_members m JOIN groups g ON g.id = m.group_id
          WHERE m.user_id = ${user_id} AND m.upstream = ${upstream} FOR UPDATE OF m`;
        const removed: string[] = [];
        for (const row of marked) {
          if (wanted.includes(row.group_id)) continue;
          await tx`DELETE FROM group_members WHERE group_id = ${row.group_id} AND user_id = ${user_id}`;
          removed.push(row.name);
        }
        const added: string[] = [];
        for (const group_id of wanted) {
          const inserted: { name: string }[] = await tx`
            WITH ins AS (
              INSERT INTO group_members (group_id, user_id, created_at, upstream) VALUES (${group_id}, ${user_id}, ${at}, ${upstream})
              ON CONFLICT (group_id, user_id) DO NOTHING RETURNING group_id
            )
            SELECT g.name FROM ins JOIN groups g ON g.id = ins.group_id`;
          if (inserted.length > 0) added.push(inserted[0]!.name);
        }
        return { added, removed };
      });
    },
  };
}
