/** PostgreSQL: SAML 2.0 service providers. */
import type { PgSql } from "./driver.ts";
import { decode, decode_or_null, encode_postgres, pick_patch } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { saml_participant_spec, saml_service_provider_row, saml_service_provider_spec } from "../rows/saml.ts";
import type { SamlStore } from "../types.ts";

export function pg_saml(sql: PgSql): SamlStore {
  return {
    async create_saml_service_provider(input) {
      const row = saml_service_provider_row(input);
      await sql`INSERT INTO saml_service_providers ${sql(encode_postgres(saml_service_provider_spec, row))}`;
      return row;
    },
    async get_saml_service_provider(entity_id) {
      const [raw] = await sql`SELECT * FROM saml_service_providers WHERE entity_id = ${entity_id}`;
      return decode_or_null(saml_service_provider_spec, raw);
    },
    async list_saml_service_providers() {
      const rows: unknown[] = await sql`SELECT * FROM saml_service_providers ORDER BY entity_id`;
      return rows.map((raw) => decode(saml_service_provider_spec, raw));
    },
    async update_saml_service_provider(entity_id, patch) {
      const changes = encode_postgres(saml_service_provider_spec, {
        ...pick_patch(saml_service_provider_spec, patch, ["entity_id", "nameid_salt", "created_at"]),
        updated_at: patch.updated_at ?? now_seconds(),
      });
      const [raw] = await sql`UPDATE saml_service_providers SET ${sql(changes)} WHERE entity_id = ${entity_id} RETURNING *`;
      return decode_or_null(saml_service_provider_spec, raw);
    },
    async delete_saml_service_provider(entity_id) {
      const result = await sql`DELETE FROM saml_service_providers WHERE entity_id = ${entity_id}`;
      return result.count > 0;
    },
    async add_saml_participant(participant) {
      // Through the session and service provider rows: nothing for either gone (and no foreign-key error).
      await sql`
        INSERT INTO saml_session_participants (session_id_hash, entity_id, name_id, name_id_value, session_index, created_at)
        SELECT s.id_hash, p.entity_id, ${participant.name_id}::jsonb, ${participant.name_id.value}, ${participant.session_index}, ${participant.created_at}
        FROM sessions s, saml_service_providers p WHERE s.id_hash = ${participant.session_id_hash} AND p.entity_id = ${participant.entity_id}
        ON CONFLICT (session_id_hash, entity_id) DO UPDATE SET name_id = excluded.name_id, name_id_value = excluded.name_id_value,
          session_index = excluded.session_index, created_at = excluded.created_at`;
    },
    async list_saml_participants(session_id_hash) {
      const rows: unknown[] = await sql`SELECT * FROM saml_session_participants WHERE session_id_hash = ${session_id_hash} ORDER BY entity_id`;
      return rows.map((raw) => decode(saml_participant_spec, raw));
    },
    async find_saml_participants(entity_id, name_id_value, session_index) {
      const rows: unknown[] =
        session_index === null
          ? await sql`SELECT * FROM saml_session_participants WHERE entity_id = ${entity_id} AND name_id_value = ${name_id_value} ORDER BY session_id_hash`
          : await sql`SELECT * FROM saml_session_participants WHERE entity_id = ${entity_id} AND session_index = ${session_index} AND name_id_value = ${name_id_value}`;
      return rows.map((raw) => decode(saml_participant_spec, raw));
    },
  };
}
