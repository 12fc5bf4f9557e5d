/** PostgreSQL: signing keys (with the version counter instances poll) and initial access tokens. */
import type { PgSql } from "./driver.ts";
import { decode, decode_or_null, encode_postgres } from "../codec.ts";
import { key_row, key_spec, key_status_change } from "../rows/keys.ts";
import { initial_access_token_row, initial_access_token_spec } from "../rows/registration.ts";
import type { InitialAccessTokenStore, KeyStore } from "../types.ts";

export function pg_keys(sql: PgSql): KeyStore {
  return {
    // Every change bumps keys_version in the same transaction, so a poller never misses one.
    async insert_key(input) {
      const row = key_row(input);
      await sql.begin(async (tx) => {
        await tx`INSERT INTO signing_keys ${sql(encode_postgres(key_spec, row))}`;
        await tx`UPDATE store_meta SET value = value + 1 WHERE name = 'keys_version'`;
      });
      return row;
    },
    async list_keys() {
      const rows: unknown[] = await sql`SELECT * FROM signing_keys ORDER BY created_at, kid`;
      return rows.map((raw) => decode(key_spec, raw));
    },
    async update_key_status(kid, status, times) {
      return sql.begin(async (tx) => {
        const [raw] = await tx`SELECT * FROM signing_keys WHERE kid = ${kid} FOR UPDATE`;
        const current = decode_or_null(key_spec, raw);
        if (!current) return null;
        const next = key_status_change(current, status, times);
        await tx`
          UPDATE signing_keys SET status = ${next.status}, activated_at = ${next.activated_at}, retire_at = ${next.retire_at},
            updated_at = ${next.updated_at}
          WHERE kid = ${kid}`;
        await tx`UPDATE store_meta SET value = value + 1 WHERE name = 'keys_version'`;
        return next;
      });
    },
    async delete_key(kid) {
      return sql.begin(async (tx) => {
        const result = await tx`DELETE FROM signing_keys WHERE kid = ${kid}`;
        if (result.count === 0) return false;
        await tx`UPDATE store_meta SET value = value + 1 WHERE name = 'keys_version'`;
        return true;
      });
    },
    async replace_private_jwk(kid, expected, private_jwk) {
      // jsonb equality: the same members and values, whatever their order. (The driver sends an
      // object as JSON; a string cast to jsonb would become a JSON string: postgres/driver.ts.)
      const result = await sql`
        UPDATE signing_keys SET private_jwk = ${private_jwk}::jsonb
        WHERE kid = ${kid} AND private_jwk = ${expected}::jsonb`;
      return result.count > 0;
    },
    async keys_version() {
      const [row] = await sql`SELECT value FROM store_meta WHERE name = 'keys_version'`;
      return Number(row?.value ?? 0);
    },
  };
}

export function pg_initial_access_tokens(sql: PgSql): InitialAccessTokenStore {
  return {
    async create_initial_access_token(input) {
      const row = initial_access_token_row(input);
      await sql`INSERT INTO initial_access_tokens ${sql(encode_postgres(initial_access_token_spec, row))}`;
      return row;
    },
    async use_initial_access_token(token_hash, now) {
      // RFC 7591 §3: one statement checks and takes a use; a concurrent UPDATE of the row waits
      // for this one and re-checks its WHERE on the new row (READ COMMITTED), so the last use is
      // taken once. NULL - 1 stays NULL: no limit.
      const [raw] = await sql`
        UPDATE initial_access_tokens SET uses_left = uses_left - 1
        WHERE token_hash = ${token_hash} AND (expires_at IS NULL OR expires_at > ${now}) AND (uses_left IS NULL OR uses_left > 0)
        RETURNING *`;
      return decode_or_null(initial_access_token_spec, raw);
    },
    async find_initial_access_token(token_hash) {
      const [raw] = await sql`SELECT * FROM initial_access_tokens WHERE token_hash = ${token_hash}`;
      return decode_or_null(initial_access_token_spec, raw);
    },
    async delete_initial_access_token(token_hash) {
      const result = await sql`DELETE FROM initial_access_tokens WHERE token_hash = ${token_hash}`;
      return result.count > 0;
    },
    async list_initial_access_tokens() {
      const rows: unknown[] = await sql`SELECT * FROM initial_access_tokens ORDER BY created_at, token_hash`;
      return rows.map((raw) => decode(initial_access_token_spec, raw));
    },
  };
}
