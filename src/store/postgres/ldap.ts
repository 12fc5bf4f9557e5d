/** PostgreSQL: the LDAP directory's service accounts, POSIX numbers and memberships. */
import type { PgQueries, PgSql } from "./driver.ts";
import { decode, decode_or_null, encode_postgres } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { batches, ldap_service_account_row, ldap_service_account_spec, service_account_key } from "../rows/ldap.ts";
import type { DirectoryMembership, LdapServiceAccountRow, LdapStore } from "../types.ts";

/** `$1, $2, …` for an IN list of `n` parameters: the driver interface sends each value as one (driver.ts). */
const placeholders = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `$${i + from}`).join(", ");

async function known(sql: PgQueries, ids: readonly string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const batch of batches(ids)) {
    const rows = await sql.unsafe<{ owner_id: string; number: string | number }>(`SELECT owner_id, number FROM ldap_posix_ids WHERE owner_id IN (${placeholders(batch.length)})`, [
      ...batch,
    ]);
    for (const row of rows) out[row.owner_id] = Number(row.number);
  }
  return out;
}

export function pg_ldap(sql: PgSql): LdapStore {
  const memberships = async (column: "group_id" | "user_id" | null, ids: readonly string[]): Promise<DirectoryMembership[]> => {
    const select = `SELECT m.group_id, g.name AS group_name, m.user_id, u.username FROM group_members m
      JOIN groups g ON g.id = m.group_id JOIN users u ON u.id = m.user_id AND u.status = 'active'`;
    if (column === null) return [...(await sql.unsafe<DirectoryMembership>(select))];
    const out: DirectoryMembership[] = [];
    for (const batch of batches([...new Set(ids)])) {
      out.push(...(await sql.unsafe<DirectoryMembership>(`${select} WHERE m.${column} IN (${placeholders(batch.length)})`, [...batch])));
    }
    return out;
  };
  return {
    async create_ldap_service_account(input) {
      const row = ldap_service_account_row(input);
      await sql`INSERT INTO ldap_service_accounts ${sql({ ...encode_postgres(ldap_service_account_spec, row), name_key: service_account_key(row.name) })}`;
      return row;
    },
    async get_ldap_service_account(name) {
      const [raw] = await sql`SELECT * FROM ldap_service_accounts WHERE name_key = ${service_account_key(name)}`;
      return decode_or_null(ldap_service_account_spec, raw);
    },
    async list_ldap_service_accounts() {
      const rows: unknown[] = await sql`SELECT * FROM ldap_service_accounts ORDER BY name_key`;
      return rows.map((raw) => decode(ldap_service_account_spec, raw) as LdapServiceAccountRow);
    },
    async set_ldap_service_account_secret(name, secret_hash, now) {
      const [raw] = await sql`
        UPDATE ldap_service_accounts SET secret_hash = ${secret_hash}, secret_created_at = ${now}
        WHERE name_key = ${service_account_key(name)} RETURNING *`;
      return decode_or_null(ldap_service_account_spec, raw);
    },
    async delete_ldap_service_account(name) {
      const result = await sql`DELETE FROM ldap_service_accounts WHERE name_key = ${service_account_key(name)}`;
      return result.count > 0;
    },
    async ldap_posix_numbers(owner_ids, first) {
      const ids = [...new Set(owner_ids)];
      const numbers = await known(sql, ids);
      if (ids.every((id) => numbers[id] !== undefined)) return numbers;
      return await sql.begin(async (tx) => {
        // One allocator at a time across instances (it also blocks no reader): max() and the
        // inserts cannot interleave with another transaction's.
        await tx`LOCK TABLE ldap_posix_ids IN SHARE ROW EXCLUSIVE MODE`;
        const current = await known(tx, ids);
        const [top] = await tx`SELECT max(number) AS n FROM ldap_posix_ids`;
        let next = Math.max(first, (top?.n === null || top?.n === undefined ? first - 1 : Number(top.n)) + 1);
        const now = now_seconds();
        for (const id of ids) {
          if (current[id] !== undefined) continue;
          await tx`INSERT INTO ldap_posix_ids (owner_id, number, created_at) VALUES (${id}, ${next}, ${now})`;
          current[id] = next++;
        }
        return current;
      });
    },
    async list_directory_memberships(query) {
      if (query.group_ids !== undefined) return memberships("group_id", query.group_ids);
      if (query.user_ids !== undefined) return memberships("user_id", query.user_ids);
      return memberships(null, []);
    },
  };
}
