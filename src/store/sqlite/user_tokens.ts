/** SQLite: link tokens mailed to users (password reset, verification, invitation, e-mail change). */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { columns, decode_or_null, encode_sqlite } from "../codec.ts";
import { user_token_row, user_token_spec } from "../rows/user_tokens.ts";
import type { UserTokenRow, UserTokenStore } from "../types.ts";
import { insert_sql } from "./sql.ts";

export function sqlite_user_tokens(db: SqliteDatabase): Sync<UserTokenStore> {
  const insert = db.prepare(insert_sql("user_tokens", columns(user_token_spec)));
  const remove_purpose = db.prepare("DELETE FROM user_tokens WHERE user_id = $user_id AND purpose = $purpose");
  const remove_all = db.prepare("DELETE FROM user_tokens WHERE user_id = $user_id");
  const find = db.prepare("SELECT * FROM user_tokens WHERE token_hash = $token_hash AND purpose = $purpose AND expires_at > $now");
  // Single use in one statement: of two concurrent redemptions only one gets the row back.
  const consume = db.prepare("DELETE FROM user_tokens WHERE token_hash = $token_hash AND purpose = $purpose AND expires_at > $now RETURNING *");

  const create_tx = db.transaction((row: UserTokenRow, replace: boolean) => {
    if (replace) remove_purpose.run({ user_id: row.user_id, purpose: row.purpose });
    insert.run(encode_sqlite(user_token_spec, row));
  });

  return {
    create_user_token(input, options) {
      create_tx.immediate(user_token_row(input), options?.replace === true);
    },
    find_user_token(token_hash, purpose, now) {
      return decode_or_null(user_token_spec, find.get({ token_hash: token_hash, purpose: purpose, now: now }));
    },
    consume_user_token(token_hash, purpose, now) {
      return decode_or_null(user_token_spec, consume.get({ token_hash: token_hash, purpose: purpose, now: now }));
    },
    delete_user_tokens(user_id, purpose) {
      if (purpose === undefined) return remove_all.run({ user_id: user_id }).changes;
      return remove_purpose.run({ user_id: user_id, purpose: purpose }).changes;
    },
  };
}
