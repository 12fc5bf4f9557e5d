/** PostgreSQL: authorization codes and access/refresh tokens, with their single-use operations. */
import type { SQL } from "bun";
import { codeSpec, decodeOrNull, encodePostgres, tokenSpec } from "../codec.ts";
import { OFFLINE_SCOPE_PATTERN, codeOutcome, codeRow, nowSeconds, refreshOutcome, tokenRow } from "../defaults.ts";
import type { CodeStore, TokenStore } from "../types.ts";

export function pgCodes(sql: SQL): CodeStore {
  const get = async (codeHash: string) => {
    const [raw] = await sql`SELECT * FROM codes WHERE code_hash = ${codeHash}`;
    return decodeOrNull(codeSpec, raw);
  };
  return {
    async insertCode(input) {
      const row = codeRow(input);
      await sql`INSERT INTO codes ${sql(encodePostgres(codeSpec, row))}`;
      return row;
    },
    getCode: get,
    async consumeCode(codeHash, now) {
      // Concurrent UPDATEs of one row serialise on its row lock; the losers re-check
      // `consumed_at IS NULL` after the winner commits and match nothing.
      const [raw] = await sql`
        UPDATE codes SET consumed_at = ${now} WHERE code_hash = ${codeHash} AND consumed_at IS NULL RETURNING *`;
      const consumed = decodeOrNull(codeSpec, raw);
      if (consumed) return codeOutcome(consumed, null, now);
      return codeOutcome(null, await get(codeHash), now);
    },
  };
}

export function pgTokens(sql: SQL): TokenStore {
  const get = async (tokenHash: string) => {
    const [raw] = await sql`SELECT * FROM tokens WHERE token_hash = ${tokenHash}`;
    return decodeOrNull(tokenSpec, raw);
  };
  return {
    async insertToken(input) {
      const row = tokenRow(input);
      await sql`INSERT INTO tokens ${sql(encodePostgres(tokenSpec, row))}`;
      return row;
    },
    getToken: get,
    async revokeToken(tokenHash, now) {
      const result = await sql`
        UPDATE tokens SET revoked_at = ${now ?? nowSeconds()} WHERE token_hash = ${tokenHash} AND revoked_at IS NULL`;
      return result.count > 0;
    },
    async revokeByGrant(grantId, now) {
      const result = await sql`
        UPDATE tokens SET revoked_at = ${now ?? nowSeconds()} WHERE grant_id = ${grantId} AND revoked_at IS NULL`;
      return result.count;
    },
    async revokeFamily(familyId, now) {
      const result = await sql`
        UPDATE tokens SET revoked_at = ${now ?? nowSeconds()} WHERE family_id = ${familyId} AND revoked_at IS NULL`;
      return result.count;
    },
    async revokeForUserClient(userId, clientId, now) {
      const result = await sql`
        UPDATE tokens SET revoked_at = ${now ?? nowSeconds()}
        WHERE user_id = ${userId} AND client_id = ${clientId} AND revoked_at IS NULL`;
      return result.count;
    },
    async revokeBySession(sessionIdHash, now, options) {
      const at = now ?? nowSeconds();
      const result = options?.keepOfflineRefresh
        ? await sql`
          UPDATE tokens SET revoked_at = ${at} WHERE session_id_hash = ${sessionIdHash} AND revoked_at IS NULL
          AND NOT (kind = 'refresh' AND (' ' || scope || ' ') LIKE ${OFFLINE_SCOPE_PATTERN} ESCAPE '!')`
        : await sql`
          UPDATE tokens SET revoked_at = ${at} WHERE session_id_hash = ${sessionIdHash} AND revoked_at IS NULL`;
      return result.count;
    },
    async rotateRefreshToken(tokenHash, now) {
      const [raw] = await sql`
        UPDATE tokens SET rotated_at = ${now}
        WHERE token_hash = ${tokenHash} AND kind = 'refresh' AND rotated_at IS NULL AND revoked_at IS NULL AND expires_at > ${now}
        RETURNING *`;
      const rotated = decodeOrNull(tokenSpec, raw);
      if (rotated) return refreshOutcome(rotated, null);
      return refreshOutcome(null, await get(tokenHash));
    },
  };
}
