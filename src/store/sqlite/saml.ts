/** SQLite: SAML 2.0 service providers. */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { columns, decode_or_null, encode_sqlite, pick_patch } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { saml_service_provider_row, saml_service_provider_spec } from "../rows/saml.ts";
import type { SamlServiceProviderRow, SamlStore } from "../types.ts";
import { insert_sql, update_sql } from "./sql.ts";

export function sqlite_saml(db: SqliteDatabase): Sync<SamlStore> {
  const cols = columns(saml_service_provider_spec);
  const insert = db.prepare(insert_sql("saml_service_providers", cols));
  const update = db.prepare(update_sql("saml_service_providers", cols, ["entity_id"]));
  const by_id = db.prepare("SELECT * FROM saml_service_providers WHERE entity_id = $entity_id");
  const list = db.prepare("SELECT * FROM saml_service_providers ORDER BY entity_id");
  const remove = db.prepare("DELETE FROM saml_service_providers WHERE entity_id = $entity_id");
  return {
    create_saml_service_provider(input) {
      const row = saml_service_provider_row(input);
      insert.run(encode_sqlite(saml_service_provider_spec, row));
      return row;
    },
    get_saml_service_provider(entity_id) {
      return decode_or_null(saml_service_provider_spec, by_id.get({ entity_id }));
    },
    list_saml_service_providers() {
      return list.all().map((raw) => decode_or_null(saml_service_provider_spec, raw) as SamlServiceProviderRow);
    },
    update_saml_service_provider(entity_id, patch) {
      // The read and the UPDATE run in the group commit's batch, which holds the write lock.
      const current = decode_or_null(saml_service_provider_spec, by_id.get({ entity_id }));
      if (current === null) return null;
      const next: SamlServiceProviderRow = {
        ...current,
        ...pick_patch(saml_service_provider_spec, patch, ["entity_id", "nameid_salt", "created_at"]),
        updated_at: patch.updated_at ?? now_seconds(),
      };
      update.run(encode_sqlite(saml_service_provider_spec, next));
      return next;
    },
    delete_saml_service_provider(entity_id) {
      return remove.run({ entity_id }).changes > 0;
    },
  };
}
