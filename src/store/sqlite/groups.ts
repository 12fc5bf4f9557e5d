/** SQLite: groups of users and their members. */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { decode, decode_or_null } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { group_row, group_spec } from "../rows/groups.ts";
import { group_name_key } from "../group_names.ts";
import type { GroupMember, GroupStore, GroupSummary } from "../types.ts";

export function sqlite_groups(db: SqliteDatabase): Sync<GroupStore> {
  const insert = db.prepare("INSERT INTO groups (id, name, name_key, description, created_at) VALUES ($id, $name, $name_key, $description, $created_at)");
  const by_key = db.prepare("SELECT * FROM groups WHERE name_key = $name_key");
  const list = db.prepare(
    `SELECT g.*, (SELECT count(*) FROM group_members m WHERE m.group_id = g.id) AS members
     FROM groups g ORDER BY g.name_key`,
  );
  const remove = db.prepare("DELETE FROM groups WHERE id = $id");
  const by_id = db.prepare("SELECT * FROM groups WHERE id = $id");
  const rename = db.prepare("UPDATE groups SET name = $name, name_key = $name_key WHERE id = $id RETURNING *");
  const rename_described = db.prepare("UPDATE groups SET name = $name, name_key = $name_key, description = $description WHERE id = $id RETURNING *");
  const add_member = db.prepare("INSERT INTO group_members (group_id, user_id, created_at) VALUES ($group_id, $user_id, $now) ON CONFLICT (group_id, user_id) DO NOTHING");
  const remove_member = db.prepare("DELETE FROM group_members WHERE group_id = $group_id AND user_id = $user_id");
  const members = db.prepare(
    `SELECT m.user_id, u.username, m.created_at AS added_at FROM group_members m JOIN users u ON u.id = m.user_id
     WHERE m.group_id = $group_id ORDER BY u.username_key`,
  );
  const user_groups = db.prepare("SELECT g.name FROM group_members m JOIN groups g ON g.id = m.group_id WHERE m.user_id = $user_id ORDER BY g.name_key");
  const add_upstream_member = db.prepare(
    "INSERT INTO group_members (group_id, user_id, created_at, upstream) VALUES ($group_id, $user_id, $now, $upstream) ON CONFLICT (group_id, user_id) DO NOTHING",
  );
  const upstream_members = db.prepare("SELECT m.group_id, g.name FROM group_members m JOIN groups g ON g.id = m.group_id WHERE m.user_id = $user_id AND m.upstream = $upstream");
  const group_name = db.prepare("SELECT name FROM groups WHERE id = $id");
  const sync_upstream = db.transaction((upstream: string, user_id: string, group_ids: readonly string[], now: number) => {
    const wanted = new Set(group_ids);
    const removed: string[] = [];
    for (const row of upstream_members.all({ user_id, upstream }) as { group_id: string; name: string }[]) {
      if (wanted.has(row.group_id)) continue;
      remove_member.run({ group_id: row.group_id, user_id });
      removed.push(row.name);
    }
    const added: string[] = [];
    for (const group_id of wanted) {
      if (add_upstream_member.run({ group_id, user_id, now, upstream }).changes > 0) added.push((group_name.get({ id: group_id }) as { name: string }).name);
    }
    return { added, removed };
  });

  return {
    create_group(input) {
      const row = group_row(input);
      insert.run({ ...row, name_key: group_name_key(row.name) });
      return row;
    },
    get_group_by_name(name) {
      return decode_or_null(group_spec, by_key.get({ name_key: group_name_key(name) }));
    },
    get_group_by_id(id) {
      return decode_or_null(group_spec, by_id.get({ id }));
    },
    rename_group(id, name, description) {
      const checked = group_row({ name, description: description ?? null });
      const values = { id, name: checked.name, name_key: group_name_key(checked.name) };
      return decode_or_null(group_spec, description === undefined ? rename.get(values) : rename_described.get({ ...values, description: checked.description }));
    },
    list_groups() {
      return (list.all() as { members: number }[]).map((raw): GroupSummary => ({ ...decode(group_spec, raw), members: raw.members }));
    },
    delete_group(id) {
      return remove.run({ id }).changes > 0;
    },
    add_group_member(group_id, user_id, now) {
      return add_member.run({ group_id: group_id, user_id: user_id, now: now ?? now_seconds() }).changes > 0;
    },
    remove_group_member(group_id, user_id) {
      return remove_member.run({ group_id: group_id, user_id: user_id }).changes > 0;
    },
    list_group_members(group_id) {
      return members.all({ group_id: group_id }) as GroupMember[];
    },
    list_user_groups(user_id) {
      return (user_groups.all({ user_id: user_id }) as { name: string }[]).map((row) => row.name);
    },
    sync_upstream_group_members(upstream, user_id, group_ids, now) {
      return sync_upstream(upstream, user_id, group_ids, now ?? now_seconds());
    },
  };
}
