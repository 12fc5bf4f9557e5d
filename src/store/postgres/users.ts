/** PostgreSQL: users and their recovery codes. */
import type { SQL } from "bun";
import { decode, decodeOrNull, encodePostgres, pickPatch, userSpec } from "../codec.ts";
import { nowSeconds, userRow, usernameKey } from "../defaults.ts";
import type { UserStore } from "../types.ts";

export function pgUsers(sql: SQL): UserStore {
  return {
    async createUser(input) {
      const row = userRow(input);
      await sql`INSERT INTO users ${sql({ ...encodePostgres(userSpec, row), username_key: usernameKey(row.username) })}`;
      return row;
    },
    async getUserById(id) {
      const [raw] = await sql`SELECT * FROM users WHERE id = ${id}`;
      return decodeOrNull(userSpec, raw);
    },
    async getUserByUsername(username) {
      const [raw] = await sql`SELECT * FROM users WHERE username_key = ${usernameKey(username)}`;
      return decodeOrNull(userSpec, raw);
    },
    async listUsers(options) {
      const rows: unknown[] = await sql`SELECT * FROM users ORDER BY username_key LIMIT ${options?.limit ?? null} OFFSET ${options?.offset ?? 0}`;
      return rows.map((raw) => decode(userSpec, raw));
    },
    async updateUser(id, patch) {
      const changes: Record<string, unknown> = encodePostgres(userSpec, pickPatch(userSpec, patch, ["id", "created_at"]));
      changes.updated_at ??= nowSeconds();
      if (patch.username !== undefined) changes.username_key = usernameKey(patch.username);
      const [raw] = await sql`UPDATE users SET ${sql(changes)} WHERE id = ${id} RETURNING *`;
      return decodeOrNull(userSpec, raw);
    },
    async deleteUser(id) {
      const result = await sql`DELETE FROM users WHERE id = ${id}`;
      return result.count > 0;
    },
    async setRecoveryCodes(userId, codeHashes, now) {
      const at = now ?? nowSeconds();
      const rows = [...new Set(codeHashes)].map((code_hash) => ({ user_id: userId, code_hash, created_at: at }));
      await sql.begin(async (tx) => {
        await tx`DELETE FROM user_recovery_codes WHERE user_id = ${userId}`;
        if (rows.length > 0) await tx`INSERT INTO user_recovery_codes ${sql(rows)}`;
      });
    },
    async consumeRecoveryCode(userId, codeHash, now) {
      const result = await sql`
        UPDATE user_recovery_codes SET used_at = ${now ?? nowSeconds()}
        WHERE user_id = ${userId} AND code_hash = ${codeHash} AND used_at IS NULL`;
      return result.count === 1;
    },
    async countRecoveryCodes(userId) {
      const [row] = await sql`SELECT count(*) AS n FROM user_recovery_codes WHERE user_id = ${userId} AND used_at IS NULL`;
      return Number(row?.n ?? 0);
    },
  };
}
