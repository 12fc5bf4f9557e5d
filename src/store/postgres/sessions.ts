/** PostgreSQL: browser sessions, pending interactions and consent grants. */
import type { PgSql } from "./driver.ts";
import { decode, decode_or_null, encode_postgres, pick_patch } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { grant_spec, merge_scopes } from "../rows/grants.ts";
import { interaction_row, interaction_spec } from "../rows/interactions.ts";
import { session_row, session_spec } from "../rows/sessions.ts";
import type { GrantStore, InteractionStore, SessionStore } from "../types.ts";

export function pg_sessions(sql: PgSql): SessionStore {
  return {
    async create_session(input) {
      const row = session_row(input);
      await sql`INSERT INTO sessions ${sql(encode_postgres(session_spec, row))}`;
      return row;
    },
    async get_session(id_hash) {
      const [raw] = await sql`SELECT * FROM sessions WHERE id_hash = ${id_hash}`;
      return decode_or_null(session_spec, raw);
    },
    async list_sessions_for_user(user_id) {
      const rows: unknown[] = await sql`SELECT * FROM sessions WHERE user_id = ${user_id} ORDER BY created_at, id_hash`;
      return rows.map((raw) => decode(session_spec, raw));
    },
    async touch_session(id_hash, last_seen_at, expires_at) {
      const result = await sql`
        UPDATE sessions SET last_seen_at = ${last_seen_at}, expires_at = COALESCE(${expires_at ?? null}::bigint, expires_at)
        WHERE id_hash = ${id_hash}`;
      return result.count > 0;
    },
    async delete_session(id_hash) {
      const result = await sql`DELETE FROM sessions WHERE id_hash = ${id_hash}`;
      return result.count > 0;
    },
    async delete_sessions_for_user(user_id) {
      const result = await sql`DELETE FROM sessions WHERE user_id = ${user_id}`;
      return result.count;
    },
    async add_session_client(session_id_hash, client_id, now) {
      // Through the session row: no row for a session that is gone (and no foreign-key error).
      await sql`
        INSERT INTO session_clients (session_id_hash, client_id, created_at)
        SELECT id_hash, ${client_id}, ${now ?? now_seconds()} FROM sessions WHERE id_hash = ${session_id_hash}
        ON CONFLICT (session_id_hash, client_id) DO NOTHING`;
    },
    async list_session_clients(session_id_hash) {
      const rows: { client_id: string }[] = await sql`
        SELECT client_id FROM session_clients WHERE session_id_hash = ${session_id_hash} ORDER BY client_id`;
      return rows.map((row) => row.client_id);
    },
  };
}

export function pg_interactions(sql: PgSql): InteractionStore {
  const get = async (id: string) => {
    const [raw] = await sql`SELECT * FROM interactions WHERE id = ${id}`;
    return decode_or_null(interaction_spec, raw);
  };
  return {
    async create_interaction(input) {
      const row = interaction_row(input);
      await sql`INSERT INTO interactions ${sql(encode_postgres(interaction_spec, row))}`;
      return row;
    },
    get_interaction: get,
    async update_interaction(id, patch) {
      const changes = encode_postgres(interaction_spec, pick_patch(interaction_spec, patch, ["id", "created_at"]));
      if (Object.keys(changes).length === 0) return get(id);
      const [raw] = await sql`UPDATE interactions SET ${sql(changes)} WHERE id = ${id} RETURNING *`;
      return decode_or_null(interaction_spec, raw);
    },
    async delete_interaction(id) {
      const result = await sql`DELETE FROM interactions WHERE id = ${id}`;
      return result.count > 0;
    },
  };
}

export function pg_grants(sql: PgSql): GrantStore {
  return {
    async upsert_grant(input) {
      const now = input.now ?? now_seconds();
      const keep_claims = input.claims === undefined;
      // One statement, so concurrent upserts cannot lose each other's scopes: the union keeps
      // the first position of every scope (existing ones first).
      const [raw] = await sql`
        INSERT INTO grants (user_id, client_id, scopes, claims, created_at, updated_at)
        VALUES (${input.user_id}, ${input.client_id}, ${merge_scopes([], input.scopes)}, ${input.claims ?? null}, ${now}, ${now})
        ON CONFLICT (user_id, client_id) DO UPDATE SET
          scopes = (
            SELECT coalesce(jsonb_agg(s ORDER BY o), '[]'::jsonb)
            FROM (SELECT s, min(o) AS o FROM jsonb_array_elements_text(grants.scopes || EXCLUDED.scopes) WITH ORDINALITY AS t(s, o) GROUP BY s) AS u
          ),
          claims = CASE WHEN ${keep_claims}::boolean THEN grants.claims ELSE EXCLUDED.claims END,
          updated_at = EXCLUDED.updated_at
        RETURNING *`;
      return decode(grant_spec, raw);
    },
    async get_grant(user_id, client_id) {
      const [raw] = await sql`SELECT * FROM grants WHERE user_id = ${user_id} AND client_id = ${client_id}`;
      return decode_or_null(grant_spec, raw);
    },
    async list_grants_for_user(user_id) {
      const rows: unknown[] = await sql`SELECT * FROM grants WHERE user_id = ${user_id} ORDER BY client_id`;
      return rows.map((raw) => decode(grant_spec, raw));
    },
    async delete_grant(user_id, client_id) {
      const result = await sql`DELETE FROM grants WHERE user_id = ${user_id} AND client_id = ${client_id}`;
      return result.count > 0;
    },
  };
}
