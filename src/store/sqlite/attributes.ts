/** SQLite: custom user attribute definitions and values. */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { columns, decode, decode_or_null, encode_sqlite } from "../codec.ts";
import { VALUES_SELECT, attribute_definition_row, attribute_definition_spec, attribute_key, decode_value, type RawValue } from "../rows/attributes.ts";
import { batches } from "../rows/ldap.ts";
import { StoreReferenceError, type AttributeDefinitionRow, type AttributeStore, type JsonValue } from "../types.ts";
import { insert_sql } from "./sql.ts";

export function sqlite_attributes(db: SqliteDatabase): Sync<AttributeStore> {
  const insert = db.prepare(insert_sql("user_attribute_definitions", [...columns(attribute_definition_spec), "name_key"]));
  const by_key = db.prepare("SELECT * FROM user_attribute_definitions WHERE name_key = $name_key");
  const list = db.prepare("SELECT * FROM user_attribute_definitions ORDER BY name_key");
  const update = db.prepare(`UPDATE user_attribute_definitions SET scope = coalesce($scope, scope), claim = coalesce($claim, claim),
    user_editable = coalesce($user_editable, user_editable), required = coalesce($required, required), updated_at = $now WHERE name_key = $name_key`);
  const remove = db.prepare("DELETE FROM user_attribute_definitions WHERE name_key = $name_key");
  const values_of = db.prepare(`${VALUES_SELECT} WHERE v.user_id IN (SELECT value FROM json_each($ids))`);
  const upsert = db.prepare(`INSERT INTO user_attribute_values (user_id, name_key, value, updated_at) VALUES ($user_id, $name_key, $value, $now)
    ON CONFLICT (user_id, name_key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`);
  const clear = db.prepare("DELETE FROM user_attribute_values WHERE user_id = $user_id AND name_key = $name_key");
  const user_exists = db.prepare("SELECT 1 AS one FROM users WHERE id = $id");
  const set_values = db.transaction((user_id: string, values: Readonly<Record<string, JsonValue | null>>, now: number) => {
    for (const [name, value] of Object.entries(values)) {
      const name_key = attribute_key(name);
      if (value === null) clear.run({ user_id, name_key });
      else upsert.run({ user_id, name_key, value: JSON.stringify(value), now });
    }
  });

  const get = (name: string) => decode_or_null(attribute_definition_spec, by_key.get({ name_key: attribute_key(name) }));
  const flag = (value: boolean | undefined) => (value === undefined ? null : value ? 1 : 0);
  return {
    create_attribute_definition(input) {
      const row = attribute_definition_row(input);
      insert.run({ ...encode_sqlite(attribute_definition_spec, row), name_key: attribute_key(row.name) });
      return row;
    },
    get_attribute_definition: get,
    list_attribute_definitions() {
      return list.all().map((raw) => decode(attribute_definition_spec, raw) as AttributeDefinitionRow);
    },
    update_attribute_definition(name, patch, now) {
      const changes = update.run({
        name_key: attribute_key(name),
        scope: patch.scope ?? null,
        claim: patch.claim ?? null,
        user_editable: flag(patch.user_editable),
        required: flag(patch.required),
        now,
      }).changes;
      return changes === 0 ? null : get(name);
    },
    delete_attribute_definition(name) {
      return remove.run({ name_key: attribute_key(name) }).changes > 0;
    },
    list_user_attribute_values(user_ids) {
      return batches([...new Set(user_ids)]).flatMap((batch) => (values_of.all({ ids: JSON.stringify(batch) }) as RawValue[]).map(decode_value));
    },
    set_user_attribute_values(user_id, values, now) {
      // Clearing a value of a user who does not exist deletes nothing: say so, as a set would.
      if (user_exists.get({ id: user_id }) == null) throw new StoreReferenceError("no such user");
      set_values(user_id, values, now);
    },
  };
}
