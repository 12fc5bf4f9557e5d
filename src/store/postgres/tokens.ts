/** PostgreSQL: authorization codes and access/refresh tokens, with their single-use operations. */
import type { SQL } from "bun";
import { decode_or_null, encode_postgres } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { code_row, code_spec } from "../rows/codes.ts";
import { OFFLINE_SCOPE_PATTERN, token_row, token_spec } from "../rows/tokens.ts";
import { code_outcome, refresh_outcome } from "../single_use.ts";
import type { CodeStore, TokenStore } from "../types.ts";

export function pg_codes(sql: SQL): CodeStore {
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

export function pg_tokens(sql: SQL): TokenStore {
  const get = async (token_hash: string) => {
    const [raw] = await sql`SELECT * FROM tokens WHERE token_hash = ${token_hash}`;
    return decode_or_null(token_spec, raw);
  };
  return {
    async insert_token(input) {
      const row = token_row(input);
      await sql`INSERT INTO tokens ${sql(encode_postgres(token_spec, row))}`;
      return row;
    },
    get_token: get,
    async revoke_token(token_hash, now) {
      const result = await sql`
        UPDATE tokens SET revoked_at = ${now ?? now_seconds()} WHERE token_hash = ${token_hash} AND revoked_at IS NULL`;
      return result.count > 0;
    },
    async revoke_by_grant(grant_id, now) {
      const result = await sql`
        UPDATE tokens SET revoked_at = ${now ?? now_seconds()} WHERE grant_id = ${grant_id} AND revoked_at IS NULL`;
      return result.count;
    },
    async revoke_family(family_id, now) {
      const result = await sql`
        UPDATE tokens SET revoked_at = ${now ?? now_seconds()} WHERE family_id = ${family_id} AND revoked_at IS NULL`;
      return result.count;
    },
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
        WHERE token_hash = ${token_hash} AND kind = 'refresh' AND rotated_at IS NULL AND revoked_at IS NULL AND expires_at > ${now}
        RETURNING *`;
      const rotated = decode_or_null(token_spec, raw);
      if (rotated) return refresh_outcome(rotated, null);
      return refresh_outcome(null, await get(token_hash));
    },
  };
}
