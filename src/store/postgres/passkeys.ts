/** PostgreSQL: passkeys and WebAuthn challenges. */
import type { PgSql } from "./driver.ts";
import { decode, decode_or_null, encode_postgres } from "../codec.ts";
import { passkey_row, passkey_spec, webauthn_challenge_row, webauthn_challenge_spec } from "../rows/passkeys.ts";
import type { PasskeyStore } from "../types.ts";

export function pg_passkeys(sql: PgSql): PasskeyStore {
  return {
    async create_passkey(input) {
      const row = passkey_row(input);
      await sql`INSERT INTO passkeys ${sql(encode_postgres(passkey_spec, row))}`;
      return row;
    },
    async get_passkey_by_credential_id(credential_id) {
      const [raw] = await sql`SELECT * FROM passkeys WHERE credential_id = ${credential_id}`;
      return decode_or_null(passkey_spec, raw);
    },
    async list_passkeys_for_user(user_id) {
      const rows: unknown[] = await sql`SELECT * FROM passkeys WHERE user_id = ${user_id} ORDER BY created_at, id`;
      return rows.map((raw) => decode(passkey_spec, raw));
    },
    async count_passkeys_for_user(user_id) {
      const [row] = await sql`SELECT count(*) AS n FROM passkeys WHERE user_id = ${user_id}`;
      return Number(row?.n ?? 0);
    },
    async rename_passkey(user_id, id, name) {
      const result = await sql`UPDATE passkeys SET name = ${name} WHERE user_id = ${user_id} AND id = ${id}`;
      return result.count > 0;
    },
    async use_passkey(id, counter, backup_state, now) {
      // One conditional UPDATE: a concurrent use of the same counter waits for this row lock, then
      // re-checks the condition on the new row (READ COMMITTED) and changes nothing.
      const result = await sql`
        UPDATE passkeys SET counter = ${counter}, backup_state = ${backup_state}, last_used_at = ${now}
        WHERE id = ${id} AND (counter < ${counter} OR (counter = 0 AND ${counter}::bigint = 0))`;
      return result.count > 0;
    },
    async delete_passkey(user_id, id, options) {
      if (options?.keep_last !== true) {
        const result = await sql`DELETE FROM passkeys WHERE user_id = ${user_id} AND id = ${id}`;
        return result.count > 0;
      }
      // The user's row is locked first, so two removals at once are serialised and the second
      // sees the first one's delete when it counts (READ COMMITTED alone would let both pass).
      return sql.begin(async (tx) => {
        await tx`SELECT id FROM users WHERE id = ${user_id} FOR UPDATE`;
        const result = await tx`
          DELETE FROM passkeys WHERE user_id = ${user_id} AND id = ${id}
          AND (SELECT count(*) FROM passkeys WHERE user_id = ${user_id}) > 1`;
        return result.count > 0;
      });
    },
    async create_webauthn_challenge(input) {
      await sql`INSERT INTO webauthn_challenges ${sql(encode_postgres(webauthn_challenge_spec, webauthn_challenge_row(input)))}`;
    },
    async consume_webauthn_challenge(challenge_hash, now) {
      const [raw] = await sql`DELETE FROM webauthn_challenges WHERE challenge_hash = ${challenge_hash} AND expires_at > ${now} RETURNING *`;
      return decode_or_null(webauthn_challenge_spec, raw);
    },
  };
}
