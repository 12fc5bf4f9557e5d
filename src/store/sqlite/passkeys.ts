/** SQLite: passkeys and WebAuthn challenges. */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { columns, decode, decode_or_null, encode_sqlite } from "../codec.ts";
import { passkey_row, passkey_spec, webauthn_challenge_row, webauthn_challenge_spec } from "../rows/passkeys.ts";
import type { PasskeyStore } from "../types.ts";
import { insert_sql } from "./sql.ts";

export function sqlite_passkeys(db: SqliteDatabase): Sync<PasskeyStore> {
  const insert = db.prepare(insert_sql("passkeys", columns(passkey_spec)));
  const by_credential = db.prepare("SELECT * FROM passkeys WHERE credential_id = $credential_id");
  const for_user = db.prepare("SELECT * FROM passkeys WHERE user_id = $user_id ORDER BY created_at, id");
  const count = db.prepare("SELECT count(*) AS n FROM passkeys WHERE user_id = $user_id");
  const rename = db.prepare("UPDATE passkeys SET name = $name WHERE user_id = $user_id AND id = $id");
  // WebAuthn §6.1.1: the counter must grow, unless the authenticator has none (always 0).
  const use = db.prepare(
    `UPDATE passkeys SET counter = $counter, backup_state = $backup_state, last_used_at = $now
     WHERE id = $id AND (counter < $counter OR (counter = 0 AND $counter = 0))`,
  );
  const remove = db.prepare("DELETE FROM passkeys WHERE user_id = $user_id AND id = $id");
  // One statement: under SQLite's single writer the count cannot change between check and delete.
  const remove_keep_last = db.prepare("DELETE FROM passkeys WHERE user_id = $user_id AND id = $id AND (SELECT count(*) FROM passkeys WHERE user_id = $user_id) > 1");
  const insert_challenge = db.prepare(insert_sql("webauthn_challenges", columns(webauthn_challenge_spec)));
  const consume = db.prepare("DELETE FROM webauthn_challenges WHERE challenge_hash = $challenge_hash AND expires_at > $now RETURNING *");

  return {
    create_passkey(input) {
      const row = passkey_row(input);
      insert.run(encode_sqlite(passkey_spec, row));
      return row;
    },
    get_passkey_by_credential_id(credential_id) {
      return decode_or_null(passkey_spec, by_credential.get({ credential_id: credential_id }));
    },
    list_passkeys_for_user(user_id) {
      return for_user.all({ user_id: user_id }).map((raw) => decode(passkey_spec, raw));
    },
    count_passkeys_for_user(user_id) {
      return (count.get({ user_id: user_id }) as { n: number } | null)?.n ?? 0;
    },
    rename_passkey(user_id, id, name) {
      return rename.run({ user_id: user_id, id, name }).changes > 0;
    },
    use_passkey(id, counter, backup_state, now) {
      return use.run({ id, counter, backup_state: backup_state ? 1 : 0, now }).changes > 0;
    },
    delete_passkey(user_id, id, options) {
      const statement = options?.keep_last === true ? remove_keep_last : remove;
      return statement.run({ user_id: user_id, id }).changes > 0;
    },
    create_webauthn_challenge(input) {
      insert_challenge.run(encode_sqlite(webauthn_challenge_spec, webauthn_challenge_row(input)));
    },
    consume_webauthn_challenge(challenge_hash, now) {
      return decode_or_null(webauthn_challenge_spec, consume.get({ challenge_hash: challenge_hash, now }));
    },
  };
}
