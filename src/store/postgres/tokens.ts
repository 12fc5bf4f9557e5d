/** PostgreSQL: authorization codes and access/refresh tokens, with their single-use operations. */
import type { PgSql } from "./driver.ts";
import { decode_or_null, encode_postgres } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { code_row, code_spec } from "../rows/codes.ts";
import { GRANT_NOT_REVOKED, OFFLINE_SCOPE_PATTERN, TOKEN_READ_COLUMNS, token_row, token_spec } from "../rows/tokens.ts";
import { code_outcome, refresh_outcome } from "../single_use.ts";
import type { CodeStore, TokenStore } from "../types.ts";

export function pg_codes(sql: PgSql): CodeStore {
  const get = async (code_hash: string) => {
    const [raw] = await sql`SELECT * FROM codes WHERE code_hash = ${code_hash}`;
    return decode_or_null(code_spec, raw);
  };
  return {
    async insert_code(input) {
      const row = code_row(input);
      await sql`INSERT INTO codes ${sql(encode_postgres(code_spec, row))}`;
      return row;
    },
    get_code: get,
    async consume_code(code_hash, now) {
      // Concurrent UPDATEs of one row serialise on its row lock; the losers re-check
      // `consumed_at IS NULL` after the winner commits and match nothing.
      const [raw] = await sql`
        UPDATE codes SET consumed_at = ${now} WHERE code_hash = ${code_hash} AND consumed_at IS NULL RETURNING *`;
      const consumed = decode_or_null(code_spec, raw);
      if (consumed) return code_outcome(consumed, null, now);
      return code_outcome(null, await get(code_hash), now);
    },
  };
}

export function pg_tokens(sql: PgSql): TokenStore {
  // A token of a grant or family revoked as a whole (migration 022) reads as revoked.
  const get = async (token_hash: string) => {
    const [raw] = await sql`SELECT ${sql.unsafe(TOKEN_READ_COLUMNS)} FROM tokens t WHERE t.token_hash = ${token_hash}`;
    return decode_or_null(token_spec, raw);
  };
  // The revoked grant (or family) is recorded in the statement that revokes the rows that exist:
  // a token a concurrent request inserts after it is stored revoked; one whose INSERT began before
  // it committed is read as revoked (get above, rotate_refresh_token).
  const revoke_whole = async (column: "grant_id" | "family_id", id: string, now: number | undefined) => {
    const at = now ?? now_seconds();
    const marked = sql`INSERT INTO revoked_grants (grant_id, revoked_at) VALUES (${id}, ${at}) ON CONFLICT (grant_id) DO NOTHING`;
    const result =
      column === "grant_id"
        ? await sql`WITH marked AS (${marked}) UPDATE tokens SET revoked_at = ${at} WHERE grant_id = ${id} AND revoked_at IS NULL`
        : await sql`WITH marked AS (${marked}) UPDATE tokens SET revoked_at = ${at} WHERE family_id = ${id} AND revoked_at IS NULL`;
    return result.count;
  };
  return {
    async insert_token(input) {
      const row = token_row(input);
      const v = encode_postgres(token_spec, row);
      // Every column of token_spec (a new one joins this list; the suite round-trips them all),
      // revoked_at set when the grant or family was revoked already.
      const [stored] = await sql`
        INSERT INTO tokens (token_hash, kind, client_id, user_id, scope, grant_id, family_id, session_id_hash, auth_time, acr, amr, claims, nonce, created_at, expires_at, revoked_at, rotated_at, jkt, resources, act)
        VALUES (${v.token_hash}, ${v.kind}, ${v.client_id}, ${v.user_id}, ${v.scope}, ${v.grant_id}, ${v.family_id}, ${v.session_id_hash}, ${v.auth_time}, ${v.acr}, ${v.amr}, ${v.claims}, ${v.nonce}, ${v.created_at}, ${v.expires_at},
          (SELECT min(revoked_at) FROM revoked_grants WHERE grant_id IN (${row.grant_id}, ${row.family_id})), ${v.rotated_at}, ${v.jkt}, ${v.resources}, ${v.act})
        RETURNING revoked_at`;
      row.revoked_at = stored!.revoked_at === null ? null : Number(stored!.revoked_at);
      return row;
    },
    get_token: get,
    async revoke_token(token_hash, now) {
      const result = await sql`
        UPDATE tokens SET revoked_at = ${now ?? now_seconds()} WHERE token_hash = ${token_hash} AND revoked_at IS NULL`;
      return result.count > 0;
    },
    revoke_by_grant: (grant_id, now) => revoke_whole("grant_id", grant_id, now),
    revoke_family: (family_id, now) => revoke_whole("family_id", family_id, now),
    async revoke_for_user_client(user_id, client_id, now) {
      const result = await sql`
        UPDATE tokens SET revoked_at = ${now ?? now_seconds()}
        WHERE user_id = ${user_id} AND client_id = ${client_id} AND revoked_at IS NULL`;
      return result.count;
    },
    async revoke_for_user(user_id, now) {
      const result = await sql`UPDATE tokens SET revoked_at = ${now ?? now_seconds()} WHERE user_id = ${user_id} AND revoked_at IS NULL`;
      return result.count;
    },
    async revoke_by_session(session_id_hash, now, options) {
      const at = now ?? now_seconds();
      const result = options?.keep_offline_refresh
        ? await sql`
          UPDATE tokens SET revoked_at = ${at} WHERE session_id_hash = ${session_id_hash} AND revoked_at IS NULL
          AND NOT (kind = 'refresh' AND (' ' || scope || ' ') LIKE ${OFFLINE_SCOPE_PATTERN} ESCAPE '!')`
        : await sql`
          UPDATE tokens SET revoked_at = ${at} WHERE session_id_hash = ${session_id_hash} AND revoked_at IS NULL`;
      return result.count;
    },
    async rotate_refresh_token(token_hash, now) {
      const [raw] = await sql`
        UPDATE tokens SET rotated_at = ${now}
        WHERE token_hash = ${token_hash} AND kind = 'refresh' AND rotated_at IS NULL AND revoked_at IS NULL AND expires_at > ${now} AND ${sql.unsafe(GRANT_NOT_REVOKED)}
        RETURNING *`;
      const rotated = decode_or_null(token_spec, raw);
      if (rotated) return refresh_outcome(rotated, null);
      return refresh_outcome(null, await get(token_hash));
    },
  };
}
