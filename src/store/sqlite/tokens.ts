/** SQLite: authorization codes and access/refresh tokens, with their single-use operations. */
import type { Database } from "bun:sqlite";
import type { Sync } from "./group-commit.ts";
import { codeSpec, columns, decodeOrNull, encodeSqlite, tokenSpec } from "../codec.ts";
import { OFFLINE_SCOPE_PATTERN, codeOutcome, codeRow, nowSeconds, refreshOutcome, tokenRow } from "../defaults.ts";
import type { CodeStore, TokenStore } from "../types.ts";
import { insertSql } from "./sql.ts";

export function sqliteCodes(db: Database): Sync<CodeStore> {
  const insert = db.prepare(insertSql("codes", columns(codeSpec)));
  const byHash = db.prepare("SELECT * FROM codes WHERE code_hash = $code_hash");
  // Check-and-mark in one statement: only the caller whose UPDATE matched gets the row back.
  const consume = db.prepare(
    "UPDATE codes SET consumed_at = $now WHERE code_hash = $code_hash AND consumed_at IS NULL RETURNING *",
  );

  return {
    insertCode(input) {
      const row = codeRow(input);
      insert.run(encodeSqlite(codeSpec, row));
      return row;
    },
    getCode(codeHash) {
      return decodeOrNull(codeSpec, byHash.get({ code_hash: codeHash }));
    },
    consumeCode(codeHash, now) {
      const consumed = decodeOrNull(codeSpec, consume.get({ code_hash: codeHash, now }));
      if (consumed) return codeOutcome(consumed, null, now);
      return codeOutcome(null, decodeOrNull(codeSpec, byHash.get({ code_hash: codeHash })), now);
    },
  };
}

export function sqliteTokens(db: Database): Sync<TokenStore> {
  const insert = db.prepare(insertSql("tokens", columns(tokenSpec)));
  const byHash = db.prepare("SELECT * FROM tokens WHERE token_hash = $token_hash");
  const revokeOne = db.prepare("UPDATE tokens SET revoked_at = $now WHERE token_hash = $token_hash AND revoked_at IS NULL");
  const revokeGrant = db.prepare("UPDATE tokens SET revoked_at = $now WHERE grant_id = $grant_id AND revoked_at IS NULL");
  const revokeFamily = db.prepare("UPDATE tokens SET revoked_at = $now WHERE family_id = $family_id AND revoked_at IS NULL");
  const revokeUserClient = db.prepare(
    "UPDATE tokens SET revoked_at = $now WHERE user_id = $user_id AND client_id = $client_id AND revoked_at IS NULL",
  );
  const revokeSession = db.prepare(
    "UPDATE tokens SET revoked_at = $now WHERE session_id_hash = $session_id_hash AND revoked_at IS NULL",
  );
  const revokeSessionKeepOffline = db.prepare(
    `UPDATE tokens SET revoked_at = $now WHERE session_id_hash = $session_id_hash AND revoked_at IS NULL
     AND NOT (kind = 'refresh' AND (' ' || scope || ' ') LIKE $offline ESCAPE '!')`,
  );
  const rotate = db.prepare(
    `UPDATE tokens SET rotated_at = $now
     WHERE token_hash = $token_hash AND kind = 'refresh' AND rotated_at IS NULL AND revoked_at IS NULL AND expires_at > $now
     RETURNING *`,
  );

  return {
    insertToken(input) {
      const row = tokenRow(input);
      insert.run(encodeSqlite(tokenSpec, row));
      return row;
    },
    getToken(tokenHash) {
      return decodeOrNull(tokenSpec, byHash.get({ token_hash: tokenHash }));
    },
    revokeToken(tokenHash, now) {
      return revokeOne.run({ token_hash: tokenHash, now: now ?? nowSeconds() }).changes > 0;
    },
    revokeByGrant(grantId, now) {
      return revokeGrant.run({ grant_id: grantId, now: now ?? nowSeconds() }).changes;
    },
    revokeFamily(familyId, now) {
      return revokeFamily.run({ family_id: familyId, now: now ?? nowSeconds() }).changes;
    },
    revokeForUserClient(userId, clientId, now) {
      return revokeUserClient.run({ user_id: userId, client_id: clientId, now: now ?? nowSeconds() }).changes;
    },
    revokeBySession(sessionIdHash, now, options) {
      const values = { session_id_hash: sessionIdHash, now: now ?? nowSeconds() };
      if (options?.keepOfflineRefresh) return revokeSessionKeepOffline.run({ ...values, offline: OFFLINE_SCOPE_PATTERN }).changes;
      return revokeSession.run(values).changes;
    },
    rotateRefreshToken(tokenHash, now) {
      const rotated = decodeOrNull(tokenSpec, rotate.get({ token_hash: tokenHash, now }));
      if (rotated) return refreshOutcome(rotated, null);
      return refreshOutcome(null, decodeOrNull(tokenSpec, byHash.get({ token_hash: tokenHash })));
    },
  };
}
