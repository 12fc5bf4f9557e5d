/** SQLite: users and their recovery codes. */
import type { Database } from "bun:sqlite";
import type { Sync } from "./group-commit.ts";
import { columns, decode, decodeOrNull, encodeSqlite, pickPatch, userSpec } from "../codec.ts";
import { nowSeconds, userRow, usernameKey } from "../defaults.ts";
import type { UserRow, UserStore } from "../types.ts";
import { insertSql, limitOf, updateSql } from "./sql.ts";

export function sqliteUsers(db: Database): Sync<UserStore> {
  const cols = [...columns(userSpec), "username_key"];
  const insert = db.prepare(insertSql("users", cols));
  const update = db.prepare(updateSql("users", cols, ["id"]));
  const byId = db.prepare("SELECT * FROM users WHERE id = $id");
  const byKey = db.prepare("SELECT * FROM users WHERE username_key = $key");
  const list = db.prepare("SELECT * FROM users ORDER BY username_key LIMIT $limit OFFSET $offset");
  const remove = db.prepare("DELETE FROM users WHERE id = $id");
  const clearCodes = db.prepare("DELETE FROM user_recovery_codes WHERE user_id = $user_id");
  const addCode = db.prepare("INSERT INTO user_recovery_codes (user_id, code_hash, created_at) VALUES ($user_id, $code_hash, $now)");
  const useCode = db.prepare(
    "UPDATE user_recovery_codes SET used_at = $now WHERE user_id = $user_id AND code_hash = $code_hash AND used_at IS NULL",
  );
  const countCodes = db.prepare("SELECT count(*) AS n FROM user_recovery_codes WHERE user_id = $user_id AND used_at IS NULL");

  const bind = (row: UserRow) => ({ ...encodeSqlite(userSpec, row), username_key: usernameKey(row.username) });
  const get = (id: string) => decodeOrNull(userSpec, byId.get({ id }));

  const updateTx = db.transaction((id: string, patch: Partial<UserRow>): UserRow | null => {
    const current = get(id);
    if (!current) return null;
    const next: UserRow = { ...current, ...pickPatch(userSpec, patch, ["id", "created_at"]) };
    if (patch.updated_at === undefined) next.updated_at = nowSeconds();
    update.run(bind(next));
    return next;
  });

  const setCodesTx = db.transaction((userId: string, hashes: string[], now: number) => {
    clearCodes.run({ user_id: userId });
    for (const hash of new Set(hashes)) addCode.run({ user_id: userId, code_hash: hash, now });
  });

  return {
    createUser(input) {
      const row = userRow(input);
      insert.run(bind(row));
      return row;
    },
    getUserById(id) {
      return get(id);
    },
    getUserByUsername(username) {
      return decodeOrNull(userSpec, byKey.get({ key: usernameKey(username) }));
    },
    listUsers(options) {
      return list.all(limitOf(options)).map((raw) => decode(userSpec, raw));
    },
    updateUser(id, patch) {
      return updateTx.immediate(id, patch);
    },
    deleteUser(id) {
      return remove.run({ id }).changes > 0;
    },
    setRecoveryCodes(userId, codeHashes, now) {
      setCodesTx.immediate(userId, codeHashes, now ?? nowSeconds());
    },
    consumeRecoveryCode(userId, codeHash, now) {
      return useCode.run({ user_id: userId, code_hash: codeHash, now: now ?? nowSeconds() }).changes === 1;
    },
    countRecoveryCodes(userId) {
      const row = countCodes.get({ user_id: userId }) as { n: number } | null;
      return row?.n ?? 0;
    },
  };
}
