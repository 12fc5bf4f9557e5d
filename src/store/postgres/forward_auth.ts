/** PostgreSQL: forward authentication (protected applications, their cookies, first accesses). */
import type { PgSql } from "./driver.ts";
import { decode, decode_or_null, encode_postgres, pick_patch } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { forward_auth_code, longest_first, protected_app_row, protected_app_spec } from "../rows/forward_auth.ts";
import { session_spec } from "../rows/sessions.ts";
import type { ForwardAuthStore } from "../types.ts";

export function pg_forward_auth(sql: PgSql): ForwardAuthStore {
  return {
    async create_protected_app(input) {
      const row = protected_app_row(input);
      await sql`INSERT INTO protected_apps ${sql(encode_postgres(protected_app_spec, row))}`;
      return row;
    },
    async get_protected_app(name) {
      const [raw] = await sql`SELECT * FROM protected_apps WHERE name = ${name}`;
      return decode_or_null(protected_app_spec, raw);
    },
    async list_protected_apps() {
      const rows: unknown[] = await sql`SELECT * FROM protected_apps ORDER BY name`;
      return rows.map((raw) => decode(protected_app_spec, raw));
    },
    async list_protected_apps_for_host(host) {
      const rows: unknown[] = await sql`SELECT * FROM protected_apps WHERE host = ${host}`;
      return longest_first(rows.map((raw) => decode(protected_app_spec, raw)));
    },
    async update_protected_app(name, changes) {
      const values = encode_postgres(protected_app_spec, { ...pick_patch(protected_app_spec, changes, ["name", "created_at"]), updated_at: changes.updated_at ?? now_seconds() });
      const [raw] = await sql`UPDATE protected_apps SET ${sql(values)} WHERE name = ${name} RETURNING *`;
      return decode_or_null(protected_app_spec, raw);
    },
    async delete_protected_app(name) {
      const result = await sql`DELETE FROM protected_apps WHERE name = ${name}`;
      return result.count > 0;
    },
    async create_forward_auth_token(token) {
      await sql`INSERT INTO forward_auth_tokens (id_hash, session_id_hash, host, created_at) VALUES (${token.id_hash}, ${token.session_id_hash}, ${token.host ?? null}, ${token.created_at ?? now_seconds()})`;
    },
    async get_forward_auth_session(id_hash, host = null) {
      const [raw] =
        host === null
          ? await sql`SELECT * FROM sessions WHERE id_hash = (SELECT session_id_hash FROM forward_auth_tokens WHERE id_hash = ${id_hash} AND host IS NULL)`
          : await sql`SELECT * FROM sessions WHERE id_hash = (SELECT session_id_hash FROM forward_auth_tokens WHERE id_hash = ${id_hash} AND host = ${host})`;
      return decode_or_null(session_spec, raw);
    },
    async create_forward_auth_code(code) {
      await sql`DELETE FROM forward_auth_codes WHERE expires_at <= ${code.created_at}`;
      await sql`INSERT INTO forward_auth_codes (code_hash, session_id_hash, host, target, expires_at, created_at)
        VALUES (${code.code_hash}, ${code.session_id_hash}, ${code.host}, ${code.target}, ${code.expires_at}, ${code.created_at})`;
    },
    async take_forward_auth_code(code_hash, now) {
      const [raw] = await sql`DELETE FROM forward_auth_codes WHERE code_hash = ${code_hash} RETURNING *`;
      if (raw === undefined) return null;
      const row = forward_auth_code(raw);
      return row.expires_at <= now ? null : row;
    },
    async record_protected_app_access(session_id_hash, app_name, now) {
      // Through the session and application rows: nothing for either that is gone (and no foreign-key error).
      const result = await sql`
        INSERT INTO protected_app_access (session_id_hash, app_name, created_at)
        SELECT sessions.id_hash, protected_apps.name, ${now ?? now_seconds()} FROM sessions, protected_apps
        WHERE sessions.id_hash = ${session_id_hash} AND protected_apps.name = ${app_name}
        ON CONFLICT (session_id_hash, app_name) DO NOTHING`;
      return result.count > 0;
    },
  };
}
