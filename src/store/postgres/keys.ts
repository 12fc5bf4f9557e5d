/** PostgreSQL: signing keys (with the version counter instances poll) and initial access tokens. */
import type { SQL } from "bun";
import { decode, decodeOrNull, encodePostgres, initialAccessTokenSpec, keySpec } from "../codec.ts";
import { keyRow, keyStatusChange, nowSeconds } from "../defaults.ts";
import type { InitialAccessTokenStore, KeyStore } from "../types.ts";

export function pgKeys(sql: SQL): KeyStore {
  return {
    // Every change bumps keys_version in the same transaction, so a poller never misses one.
    async insertKey(input) {
      const row = keyRow(input);
      await sql.begin(async (tx) => {
        await tx`INSERT INTO signing_keys ${sql(encodePostgres(keySpec, row))}`;
        await tx`UPDATE store_meta SET value = value + 1 WHERE name = 'keys_version'`;
      });
      return row;
    },
    async listKeys() {
      const rows: unknown[] = await sql`SELECT * FROM signing_keys ORDER BY created_at, kid`;
      return rows.map((raw) => decode(keySpec, raw));
    },
    async updateKeyStatus(kid, status, times) {
      return sql.begin(async (tx) => {
        const [raw] = await tx`SELECT * FROM signing_keys WHERE kid = ${kid} FOR UPDATE`;
        const current = decodeOrNull(keySpec, raw);
        if (!current) return null;
        const next = keyStatusChange(current, status, times);
        await tx`
          UPDATE signing_keys SET status = ${next.status}, activated_at = ${next.activated_at}, retire_at = ${next.retire_at},
            updated_at = ${next.updated_at}
          WHERE kid = ${kid}`;
        await tx`UPDATE store_meta SET value = value + 1 WHERE name = 'keys_version'`;
        return next;
      });
    },
    async deleteKey(kid) {
      return sql.begin(async (tx) => {
        const result = await tx`DELETE FROM signing_keys WHERE kid = ${kid}`;
        if (result.count === 0) return false;
        await tx`UPDATE store_meta SET value = value + 1 WHERE name = 'keys_version'`;
        return true;
      });
    },
    async keysVersion() {
      const [row] = await sql`SELECT value FROM store_meta WHERE name = 'keys_version'`;
      return Number(row?.value ?? 0);
    },
  };
}

export function pgInitialAccessTokens(sql: SQL): InitialAccessTokenStore {
  return {
    async createInitialAccessToken(input) {
      const row = { token_hash: input.token_hash, created_at: input.created_at ?? nowSeconds(), expires_at: input.expires_at };
      await sql`INSERT INTO initial_access_tokens ${sql(encodePostgres(initialAccessTokenSpec, row))}`;
      return row;
    },
    async findInitialAccessToken(tokenHash) {
      const [raw] = await sql`SELECT * FROM initial_access_tokens WHERE token_hash = ${tokenHash}`;
      return decodeOrNull(initialAccessTokenSpec, raw);
    },
    async deleteInitialAccessToken(tokenHash) {
      const result = await sql`DELETE FROM initial_access_tokens WHERE token_hash = ${tokenHash}`;
      return result.count > 0;
    },
    async listInitialAccessTokens() {
      const rows: unknown[] = await sql`SELECT * FROM initial_access_tokens ORDER BY created_at, token_hash`;
      return rows.map((raw) => decode(initialAccessTokenSpec, raw));
    },
  };
}
