/** SQLite: signing keys (with the version counter instances poll) and initial access tokens. */
import type { Database } from "bun:sqlite";
import type { Sync } from "./group-commit.ts";
import { columns, decode, decodeOrNull, encodeSqlite, initialAccessTokenSpec, keySpec } from "../codec.ts";
import { keyRow, keyStatusChange, nowSeconds } from "../defaults.ts";
import type { InitialAccessTokenStore, KeyRow, KeyStatus, KeyStore, NewKey } from "../types.ts";
import { insertSql, updateSql } from "./sql.ts";

export function sqliteKeys(db: Database): Sync<KeyStore> {
  const cols = columns(keySpec);
  const insert = db.prepare(insertSql("signing_keys", cols));
  const update = db.prepare(updateSql("signing_keys", cols, ["kid"]));
  const byKid = db.prepare("SELECT * FROM signing_keys WHERE kid = $kid");
  const list = db.prepare("SELECT * FROM signing_keys ORDER BY created_at, kid");
  const remove = db.prepare("DELETE FROM signing_keys WHERE kid = $kid");
  const bump = db.prepare("UPDATE store_meta SET value = value + 1 WHERE name = 'keys_version'");
  const version = db.prepare("SELECT value FROM store_meta WHERE name = 'keys_version'");

  // Every change bumps keys_version in the same transaction, so a poller never misses one.
  const insertTx = db.transaction((input: NewKey): KeyRow => {
    const row = keyRow(input);
    insert.run(encodeSqlite(keySpec, row));
    bump.run();
    return row;
  });
  const statusTx = db.transaction((kid: string, status: KeyStatus, times?: Parameters<KeyStore["updateKeyStatus"]>[2]) => {
    const current = decodeOrNull(keySpec, byKid.get({ kid }));
    if (!current) return null;
    const next = keyStatusChange(current, status, times);
    update.run(encodeSqlite(keySpec, next));
    bump.run();
    return next;
  });
  const deleteTx = db.transaction((kid: string): boolean => {
    const deleted = remove.run({ kid }).changes > 0;
    if (deleted) bump.run();
    return deleted;
  });

  return {
    insertKey(input) {
      return insertTx.immediate(input);
    },
    listKeys() {
      return list.all().map((raw) => decode(keySpec, raw));
    },
    updateKeyStatus(kid, status, times) {
      return statusTx.immediate(kid, status, times);
    },
    deleteKey(kid) {
      return deleteTx.immediate(kid);
    },
    keysVersion() {
      const row = version.get() as { value: number } | null;
      return row?.value ?? 0;
    },
  };
}

export function sqliteInitialAccessTokens(db: Database): Sync<InitialAccessTokenStore> {
  const insert = db.prepare(insertSql("initial_access_tokens", columns(initialAccessTokenSpec)));
  const byHash = db.prepare("SELECT * FROM initial_access_tokens WHERE token_hash = $token_hash");
  const list = db.prepare("SELECT * FROM initial_access_tokens ORDER BY created_at, token_hash");
  const remove = db.prepare("DELETE FROM initial_access_tokens WHERE token_hash = $token_hash");

  return {
    createInitialAccessToken(input) {
      const row = { token_hash: input.token_hash, created_at: input.created_at ?? nowSeconds(), expires_at: input.expires_at };
      insert.run(encodeSqlite(initialAccessTokenSpec, row));
      return row;
    },
    findInitialAccessToken(tokenHash) {
      return decodeOrNull(initialAccessTokenSpec, byHash.get({ token_hash: tokenHash }));
    },
    deleteInitialAccessToken(tokenHash) {
      return remove.run({ token_hash: tokenHash }).changes > 0;
    },
    listInitialAccessTokens() {
      return list.all().map((raw) => decode(initialAccessTokenSpec, raw));
    },
  };
}
