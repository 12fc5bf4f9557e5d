/** SQLite: SAML 2.0 service providers. */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { columns, decode, decode_or_null, encode_sqlite, pick_patch } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { saml_participant_spec, saml_service_provider_row, saml_service_provider_spec } from "../rows/saml.ts";
import type { SamlServiceProviderRow, SamlStore } from "../types.ts";
import { insert_sql, update_sql } from "./sql.ts";

export function sqlite_saml(db: SqliteDatabase): Sync<SamlStore> {
  const cols = columns(saml_service_provider_spec);
  const insert = db.prepare(insert_sql("saml_service_providers", cols));
  const update = db.prepare(update_sql("saml_service_providers", cols, ["entity_id"]));
  const by_id = db.prepare("SELECT * FROM saml_service_providers WHERE entity_id = $entity_id");
  const list = db.prepare("SELECT * FROM saml_service_providers ORDER BY entity_id");
  const remove = db.prepare("DELETE FROM saml_service_providers WHERE entity_id = $entity_id");
  // Through the session and service provider rows: nothing for either gone (and no foreign-key error).
  const add_participant = db.prepare(
    `INSERT INTO saml_session_participants (session_id_hash, entity_id, name_id, name_id_value, session_index, created_at)
     SELECT s.id_hash, p.entity_id, $name_id, $name_id_value, $session_index, $created_at
     FROM sessions s, saml_service_providers p WHERE s.id_hash = $session_id_hash AND p.entity_id = $entity_id
     ON CONFLICT (session_id_hash, entity_id) DO UPDATE SET name_id = excluded.name_id, name_id_value = excluded.name_id_value,
       session_index = excluded.session_index, created_at = excluded.created_at`,
  );
  const participants = db.prepare("SELECT * FROM saml_session_participants WHERE session_id_hash = $session_id_hash ORDER BY entity_id");
  const by_index = db.prepare("SELECT * FROM saml_session_participants WHERE entity_id = $entity_id AND session_index = $session_index AND name_id_value = $name_id_value");
  const by_name = db.prepare("SELECT * FROM saml_session_participants WHERE entity_id = $entity_id AND name_id_value = $name_id_value ORDER BY session_id_hash");
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
    add_saml_participant(participant) {
      add_participant.run({
        session_id_hash: participant.session_id_hash,
        entity_id: participant.entity_id,
        name_id: JSON.stringify(participant.name_id),
        name_id_value: participant.name_id.value,
        session_index: participant.session_index,
        created_at: participant.created_at,
      });
    },
    list_saml_participants(session_id_hash) {
      return participants.all({ session_id_hash }).map((raw) => decode(saml_participant_spec, raw));
    },
    find_saml_participants(entity_id, name_id_value, session_index) {
      const rows = session_index === null ? by_name.all({ entity_id, name_id_value }) : by_index.all({ entity_id, session_index, name_id_value });
      return rows.map((raw) => decode(saml_participant_spec, raw));
    },
  };
}
