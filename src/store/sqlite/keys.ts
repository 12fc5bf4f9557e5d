/** SQLite: signing keys (with the version counter instances poll) and initial access tokens. */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { columns, decode, decode_or_null, encode_sqlite } from "../codec.ts";
import { key_row, key_spec, key_status_change } from "../rows/keys.ts";
import { initial_access_token_row, initial_access_token_spec } from "../rows/registration.ts";
import type { InitialAccessTokenStore, KeyRow, KeyStatus, KeyStore, NewKey } from "../types.ts";
import { insert_sql, update_sql } from "./sql.ts";

export function sqlite_keys(db: SqliteDatabase): Sync<KeyStore> {
  const cols = columns(key_spec);
  const insert = db.prepare(insert_sql("signing_keys", cols));
  const update = db.prepare(update_sql("signing_keys", cols, ["kid"]));
  const by_kid = db.prepare("SELECT * FROM signing_keys WHERE kid = $kid");
  const list = db.prepare("SELECT * FROM signing_keys ORDER BY created_at, kid");
  const remove = db.prepare("DELETE FROM signing_keys WHERE kid = $kid");
  const bump = db.prepare("UPDATE store_meta SET value = value + 1 WHERE name = 'keys_version'");
  const version = db.prepare("SELECT value FROM store_meta WHERE name = 'keys_version'");
  // JSON is stored as JSON.stringify's text, so the text of what was read compares equal.
  const replace_private = db.prepare("UPDATE signing_keys SET private_jwk = $private_jwk WHERE kid = $kid AND private_jwk = $expected");

  // Every change bumps keys_version in the same transaction, so a poller never misses one.
  const insert_tx = db.transaction((input: NewKey): KeyRow => {
    const row = key_row(input);
    insert.run(encode_sqlite(key_spec, row));
    bump.run();
    return row;
  });
  const status_tx = db.transaction((kid: string, status: KeyStatus, times?: Parameters<KeyStore["update_key_status"]>[2]) => {
    const current = decode_or_null(key_spec, by_kid.get({ kid }));
    if (!current) return null;
    const next = key_status_change(current, status, times);
    update.run(encode_sqlite(key_spec, next));
    bump.run();
    return next;
  });
  const delete_tx = db.transaction((kid: string): boolean => {
    const deleted = remove.run({ kid }).changes > 0;
    if (deleted) bump.run();
    return deleted;
  });

  return {
    insert_key(input) {
      return insert_tx.immediate(input);
    },
    list_keys() {
      return list.all().map((raw) => decode(key_spec, raw));
    },
    update_key_status(kid, status, times) {
      return status_tx.immediate(kid, status, times);
    },
    delete_key(kid) {
      return delete_tx.immediate(kid);
    },
    replace_private_jwk(kid, expected, private_jwk) {
      return replace_private.run({ kid, expected: JSON.stringify(expected), private_jwk: JSON.stringify(private_jwk) }).changes > 0;
    },
    keys_version() {
      const row = version.get() as { value: number } | null;
      return row?.value ?? 0;
    },
  };
}

export function sqlite_initial_access_tokens(db: SqliteDatabase): Sync<InitialAccessTokenStore> {
  const insert = db.prepare(insert_sql("initial_access_tokens", columns(initial_access_token_spec)));
  const by_hash = db.prepare("SELECT * FROM initial_access_tokens WHERE token_hash = $token_hash");
  const list = db.prepare("SELECT * FROM initial_access_tokens ORDER BY created_at, token_hash");
  const remove = db.prepare("DELETE FROM initial_access_tokens WHERE token_hash = $token_hash");
  // RFC 7591 §3: one statement checks and takes a use, so concurrent registrations cannot both
  // take the last one (NULL - 1 stays NULL: no limit).
  const use = db.prepare(`
    UPDATE initial_access_tokens SET uses_left = uses_left - 1
    WHERE token_hash = $token_hash AND (expires_at IS NULL OR expires_at > $now) AND (uses_left IS NULL OR uses_left > 0)
    RETURNING *`);

  return {
    create_initial_access_token(input) {
      const row = initial_access_token_row(input);
      insert.run(encode_sqlite(initial_access_token_spec, row));
      return row;
    },
    use_initial_access_token(token_hash, now) {
      return decode_or_null(initial_access_token_spec, use.get({ token_hash: token_hash, now: now }));
    },
    find_initial_access_token(token_hash) {
      return decode_or_null(initial_access_token_spec, by_hash.get({ token_hash: token_hash }));
    },
    delete_initial_access_token(token_hash) {
      return remove.run({ token_hash: token_hash }).changes > 0;
    },
    list_initial_access_tokens() {
      return list.all().map((raw) => decode(initial_access_token_spec, raw));
    },
  };
}
