/** SQLite: authorization codes and access/refresh tokens, with their single-use operations. */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { columns, decode_or_null, encode_sqlite } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { code_row, code_spec } from "../rows/codes.ts";
import { GRANT_NOT_REVOKED, OFFLINE_SCOPE_PATTERN, TOKEN_READ_COLUMNS, token_row, token_spec } from "../rows/tokens.ts";
import { code_outcome, refresh_outcome } from "../single_use.ts";
import type { CodeStore, TokenStore } from "../types.ts";
import { insert_sql } from "./sql.ts";

export function sqlite_codes(db: SqliteDatabase): Sync<CodeStore> {
  const insert = db.prepare(insert_sql("codes", columns(code_spec)));
  const by_hash = db.prepare("SELECT * FROM codes WHERE code_hash = $code_hash");
  // Check-and-mark in one statement: only the caller whose UPDATE matched gets the row back.
  const consume = db.prepare("UPDATE codes SET consumed_at = $now WHERE code_hash = $code_hash AND consumed_at IS NULL RETURNING *");

  return {
    insert_code(input) {
      const row = code_row(input);
      insert.run(encode_sqlite(code_spec, row));
      return row;
    },
    get_code(code_hash) {
      return decode_or_null(code_spec, by_hash.get({ code_hash: code_hash }));
    },
    consume_code(code_hash, now) {
      const consumed = decode_or_null(code_spec, consume.get({ code_hash: code_hash, now }));
      if (consumed) return code_outcome(consumed, null, now);
      return code_outcome(null, decode_or_null(code_spec, by_hash.get({ code_hash: code_hash })), now);
    },
  };
}

export function sqlite_tokens(db: SqliteDatabase): Sync<TokenStore> {
  // A token of a grant or family revoked as a whole (migration 022) is stored revoked.
  const cols = columns(token_spec);
  const insert = db.prepare(
    `INSERT INTO tokens (${cols.join(", ")}) VALUES (${cols.map((c) => (c === "revoked_at" ? "(SELECT min(revoked_at) FROM revoked_grants WHERE grant_id IN ($grant_id, $family_id))" : `$${c}`)).join(", ")}) RETURNING revoked_at`,
  );
  const by_hash = db.prepare(`SELECT ${TOKEN_READ_COLUMNS} FROM tokens t WHERE t.token_hash = $token_hash`);
  const revoke_one = db.prepare("UPDATE tokens SET revoked_at = $now WHERE token_hash = $token_hash AND revoked_at IS NULL");
  // The grant (or family) is recorded first, in the same transaction: see revoke_whole below.
  const mark_revoked = db.prepare("INSERT INTO revoked_grants (grant_id, revoked_at) VALUES ($grant_id, $now) ON CONFLICT (grant_id) DO NOTHING");
  const revoke_grant = db.prepare("UPDATE tokens SET revoked_at = $now WHERE grant_id = $grant_id AND revoked_at IS NULL");
  const revoke_family = db.prepare("UPDATE tokens SET revoked_at = $now WHERE family_id = $family_id AND revoked_at IS NULL");
  const revoke_user = db.prepare("UPDATE tokens SET revoked_at = $now WHERE user_id = $user_id AND revoked_at IS NULL");
  const revoke_user_client = db.prepare("UPDATE tokens SET revoked_at = $now WHERE user_id = $user_id AND client_id = $client_id AND revoked_at IS NULL");
  const revoke_session = db.prepare("UPDATE tokens SET revoked_at = $now WHERE session_id_hash = $session_id_hash AND revoked_at IS NULL");
  const revoke_session_keep_offline = db.prepare(
    `UPDATE tokens SET revoked_at = $now WHERE session_id_hash = $session_id_hash AND revoked_at IS NULL
     AND NOT (kind = 'refresh' AND (' ' || scope || ' ') LIKE $offline ESCAPE '!')`,
  );
  const rotate = db.prepare(
    `UPDATE tokens SET rotated_at = $now
     WHERE token_hash = $token_hash AND kind = 'refresh' AND rotated_at IS NULL AND revoked_at IS NULL AND expires_at > $now AND ${GRANT_NOT_REVOKED}
     RETURNING *`,
  );
  // The rows that exist are revoked, and the grant is recorded for those a concurrent request is
  // about to insert (migration 022): they are stored revoked, or read as revoked.
  const revoke_whole = db.transaction((update: typeof revoke_grant, key: "grant_id" | "family_id", id: string, now: number): number => {
    mark_revoked.run({ grant_id: id, now });
    return update.run({ [key]: id, now }).changes;
  });

  return {
    insert_token(input) {
      const row = token_row(input);
      const { revoked_at: _unset, ...values } = encode_sqlite(token_spec, row);
      row.revoked_at = (insert.get(values) as { revoked_at: number | null }).revoked_at;
      return row;
    },
    get_token(token_hash) {
      return decode_or_null(token_spec, by_hash.get({ token_hash: token_hash }));
    },
    revoke_token(token_hash, now) {
      return revoke_one.run({ token_hash: token_hash, now: now ?? now_seconds() }).changes > 0;
    },
    revoke_by_grant(grant_id, now) {
      return revoke_whole(revoke_grant, "grant_id", grant_id, now ?? now_seconds());
    },
    revoke_family(family_id, now) {
      return revoke_whole(revoke_family, "family_id", family_id, now ?? now_seconds());
    },
    revoke_for_user_client(user_id, client_id, now) {
      return revoke_user_client.run({ user_id: user_id, client_id: client_id, now: now ?? now_seconds() }).changes;
    },
    revoke_for_user(user_id, now) {
      return revoke_user.run({ user_id: user_id, now: now ?? now_seconds() }).changes;
    },
    revoke_by_session(session_id_hash, now, options) {
      const values = { session_id_hash: session_id_hash, now: now ?? now_seconds() };
      if (options?.keep_offline_refresh) return revoke_session_keep_offline.run({ ...values, offline: OFFLINE_SCOPE_PATTERN }).changes;
      return revoke_session.run(values).changes;
    },
    rotate_refresh_token(token_hash, now) {
      const rotated = decode_or_null(token_spec, rotate.get({ token_hash: token_hash, now }));
      if (rotated) return refresh_outcome(rotated, null);
      return refresh_outcome(null, decode_or_null(token_spec, by_hash.get({ token_hash: token_hash })));
    },
  };
}
