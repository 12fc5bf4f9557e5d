/** SQLite: the LDAP directory's service accounts, POSIX numbers and memberships. */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { columns, decode, decode_or_null, encode_sqlite } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { batches, ldap_service_account_row, ldap_service_account_spec, service_account_key } from "../rows/ldap.ts";
import type { DirectoryMembership, LdapServiceAccountRow, LdapStore } from "../types.ts";
import { insert_sql } from "./sql.ts";

const MEMBERSHIPS = `SELECT m.group_id, g.name AS group_name, m.user_id, u.username FROM group_members m
  JOIN groups g ON g.id = m.group_id JOIN users u ON u.id = m.user_id AND u.status = 'active'`;

export function sqlite_ldap(db: SqliteDatabase): Sync<LdapStore> {
  const insert = db.prepare(insert_sql("ldap_service_accounts", [...columns(ldap_service_account_spec), "name_key"]));
  const by_key = db.prepare("SELECT * FROM ldap_service_accounts WHERE name_key = $name_key");
  const list = db.prepare("SELECT * FROM ldap_service_accounts ORDER BY name_key");
  const set_secret = db.prepare("UPDATE ldap_service_accounts SET secret_hash = $secret_hash, secret_created_at = $now WHERE name_key = $name_key");
  const remove = db.prepare("DELETE FROM ldap_service_accounts WHERE name_key = $name_key");
  const numbers_of = db.prepare("SELECT owner_id, number FROM ldap_posix_ids WHERE owner_id IN (SELECT value FROM json_each($ids))");
  const highest = db.prepare("SELECT max(number) AS n FROM ldap_posix_ids");
  const insert_number = db.prepare("INSERT INTO ldap_posix_ids (owner_id, number, created_at) VALUES ($owner_id, $number, $now)");
  const all_members = db.prepare(MEMBERSHIPS);
  // The IN lists walk the primary key (group_id first) and group_members_user_id.
  const members_of_groups = db.prepare(`${MEMBERSHIPS} WHERE m.group_id IN (SELECT value FROM json_each($ids))`);
  const groups_of_users = db.prepare(`${MEMBERSHIPS} WHERE m.user_id IN (SELECT value FROM json_each($ids))`);

  const known = (ids: readonly string[]): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const batch of batches(ids)) {
      for (const row of numbers_of.all({ ids: JSON.stringify(batch) }) as { owner_id: string; number: number }[]) out[row.owner_id] = row.number;
    }
    return out;
  };
  // One transaction (inside the group commit's batch, which holds the write lock): nothing can
  // allocate between the max() read and the inserts.
  const allocate = db.transaction((ids: readonly string[], first: number) => {
    const numbers = known(ids);
    let next = Math.max(first, ((highest.get() as { n: number | null }).n ?? first - 1) + 1);
    const now = now_seconds();
    for (const id of ids) {
      if (numbers[id] !== undefined) continue;
      insert_number.run({ owner_id: id, number: next, now });
      numbers[id] = next++;
    }
    return numbers;
  });

  const get = (name: string) => decode_or_null(ldap_service_account_spec, by_key.get({ name_key: service_account_key(name) }));
  return {
    create_ldap_service_account(input) {
      const row = ldap_service_account_row(input);
      insert.run({ ...encode_sqlite(ldap_service_account_spec, row), name_key: service_account_key(row.name) });
      return row;
    },
    get_ldap_service_account: get,
    list_ldap_service_accounts() {
      return list.all().map((raw) => decode(ldap_service_account_spec, raw) as LdapServiceAccountRow);
    },
    set_ldap_service_account_secret(name, secret_hash, now) {
      if (set_secret.run({ name_key: service_account_key(name), secret_hash, now }).changes === 0) return null;
      return get(name);
    },
    delete_ldap_service_account(name) {
      return remove.run({ name_key: service_account_key(name) }).changes > 0;
    },
    ldap_posix_numbers(owner_ids, first) {
      const ids = [...new Set(owner_ids)];
      const numbers = known(ids);
      if (ids.every((id) => numbers[id] !== undefined)) return numbers;
      return allocate(ids, first);
    },
    list_directory_memberships(query) {
      if (query.group_ids === undefined && query.user_ids === undefined) return all_members.all() as DirectoryMembership[];
      const [statement, ids] = query.group_ids !== undefined ? [members_of_groups, query.group_ids] : [groups_of_users, query.user_ids ?? []];
      return batches([...new Set(ids)]).flatMap((batch) => statement.all({ ids: JSON.stringify(batch) }) as DirectoryMembership[]);
    },
  };
}
