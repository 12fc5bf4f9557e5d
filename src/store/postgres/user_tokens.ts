/** PostgreSQL: link tokens mailed to users (password reset, verification, invitation, e-mail change). */
import type { PgSql } from "./driver.ts";
import { decode_or_null, encode_postgres } from "../codec.ts";
import { user_token_row, user_token_spec } from "../rows/user_tokens.ts";
import type { UserTokenStore } from "../types.ts";

export function pg_user_tokens(sql: PgSql): UserTokenStore {
  return {
    async create_user_token(input, options) {
      const row = user_token_row(input);
      const values = encode_postgres(user_token_spec, row);
      if (options?.replace !== true) {
        await sql`INSERT INTO user_tokens ${sql(values)}`;
        return;
      }
      await sql.begin(async (tx) => {
        await tx`DELETE FROM user_tokens WHERE user_id = ${row.user_id} AND purpose = ${row.purpose}`;
        await tx`INSERT INTO user_tokens ${sql(values)}`;
      });
    },
    async find_user_token(token_hash, purpose, now) {
      const [raw] = await sql`SELECT * FROM user_tokens WHERE token_hash = ${token_hash} AND purpose = ${purpose} AND expires_at > ${now}`;
      return decode_or_null(user_token_spec, raw);
    },
    async consume_user_token(token_hash, purpose, now) {
      // Single use in one statement: a concurrent DELETE of the same row waits for this one and
      // then finds nothing (READ COMMITTED), so only one redemption gets the row back.
      const [raw] = await sql`
        DELETE FROM user_tokens WHERE token_hash = ${token_hash} AND purpose = ${purpose} AND expires_at > ${now}
        RETURNING *`;
      return decode_or_null(user_token_spec, raw);
    },
    async delete_user_tokens(user_id, purpose) {
      const result =
        purpose === undefined
          ? await sql`DELETE FROM user_tokens WHERE user_id = ${user_id}`
          : await sql`DELETE FROM user_tokens WHERE user_id = ${user_id} AND purpose = ${purpose}`;
      return result.count;
    },
  };
}
