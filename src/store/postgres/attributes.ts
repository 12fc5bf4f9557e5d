/** PostgreSQL: custom user attribute definitions and values. */
import type { PgSql } from "./driver.ts";
import { decode, decode_or_null, encode_postgres } from "../codec.ts";
import { VALUES_SELECT, attribute_definition_row, attribute_definition_spec, attribute_key, decode_value, type RawValue } from "../rows/attributes.ts";
import { batches } from "../rows/ldap.ts";
import { StoreReferenceError, type AttributeDefinitionRow, type AttributeStore, type UserAttributeValue } from "../types.ts";

/** `$1, $2, …` for an IN list of `n` parameters: the driver interface sends each value as one (driver.ts). */
const placeholders = (n: number) => Array.from({ length: n }, (_, i) => `$${i + 1}`).join(", ");

export function pg_attributes(sql: PgSql): AttributeStore {
  const get = async (name: string) => {
    const [raw] = await sql`SELECT * FROM user_attribute_definitions WHERE name_key = ${attribute_key(name)}`;
    return decode_or_null(attribute_definition_spec, raw);
  };
  return {
    async create_attribute_definition(input) {
      const row = attribute_definition_row(input);
      await sql`INSERT INTO user_attribute_definitions ${sql({ ...encode_postgres(attribute_definition_spec, row), name_key: attribute_key(row.name) })}`;
      return row;
    },
    get_attribute_definition: get,
    async list_attribute_definitions() {
      const rows: unknown[] = await sql`SELECT * FROM user_attribute_definitions ORDER BY name_key`;
      return rows.map((raw) => decode(attribute_definition_spec, raw) as AttributeDefinitionRow);
    },
    async update_attribute_definition(name, patch, now) {
      const [raw] = await sql`
        UPDATE user_attribute_definitions SET scope = coalesce(${patch.scope ?? null}::text, scope), claim = coalesce(${patch.claim ?? null}::text, claim),
          user_editable = coalesce(${patch.user_editable ?? null}::boolean, user_editable), required = coalesce(${patch.required ?? null}::boolean, required),
          updated_at = ${now}
        WHERE name_key = ${attribute_key(name)} RETURNING *`;
      return decode_or_null(attribute_definition_spec, raw);
    },
    async delete_attribute_definition(name) {
      const result = await sql`DELETE FROM user_attribute_definitions WHERE name_key = ${attribute_key(name)}`;
      return result.count > 0;
    },
    async list_user_attribute_values(user_ids) {
      const out: UserAttributeValue[] = [];
      for (const batch of batches([...new Set(user_ids)])) {
        const rows = await sql.unsafe<RawValue>(`${VALUES_SELECT} WHERE v.user_id IN (${placeholders(batch.length)})`, [...batch]);
        out.push(...rows.map(decode_value));
      }
      return out;
    },
    async set_user_attribute_values(user_id, values, now) {
      await sql.begin(async (tx) => {
        const [user] = await tx`SELECT 1 AS one FROM users WHERE id = ${user_id}`;
        if (user === undefined) throw new StoreReferenceError("no such user");
        for (const [name, value] of Object.entries(values)) {
          const name_key = attribute_key(name);
          if (value === null) await tx`DELETE FROM user_attribute_values WHERE user_id = ${user_id} AND name_key = ${name_key}`;
          else
            await tx`INSERT INTO user_attribute_values (user_id, name_key, value, updated_at) VALUES (${user_id}, ${name_key}, ${JSON.stringify(value)}, ${now})
              ON CONFLICT (user_id, name_key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`;
        }
      });
    },
  };
}
