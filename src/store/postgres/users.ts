/** PostgreSQL: users and their recovery codes. */
import type { PgSql } from "./driver.ts";
import { decode, decode_or_null, encode_postgres, pick_patch } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { checked_status, user_row, user_spec } from "../rows/users.ts";
import { username_key } from "../usernames.ts";
import { MAX_BROWSE_PAGE, type UserStatus, type UserStore } from "../types.ts";

/**
 * browse_users (types/users.ts UserBrowse): $1 what was typed lowered, $2 its username key,
 * $3 the status, $4 the group, $5 the second factor. A substring cannot walk an index, so the
 * page and its count each read the table once; the page size is bounded (MAX_BROWSE_PAGE).
 */
const BROWSE_WHERE = `($1::text IS NULL OR strpos(username_key, $2::text) > 0 OR strpos(lower(email), $1::text) > 0 OR strpos(lower(name), $1::text) > 0)
  AND ($3::text IS NULL OR status = $3::text)
  AND ($4::text IS NULL OR EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = $4::text AND m.user_id = users.id))
  AND ($5::boolean IS NULL OR (totp_enabled_at IS NOT NULL OR EXISTS (SELECT 1 FROM passkeys p WHERE p.user_id = users.id)) = $5::boolean)`;
const BROWSE_ORDER = { username: "username_key", created: "created_at DESC, username_key" } as const;

export function pg_users(sql: PgSql): UserStore {
  return {
    async create_user(input) {
      const row = user_row(input);
      await sql`INSERT INTO users ${sql({ ...encode_postgres(user_spec, row), username_key: username_key(row.username) })}`;
      return row;
    },
    async get_user_by_id(id) {
      const [raw] = await sql`SELECT * FROM users WHERE id = ${id}`;
      return decode_or_null(user_spec, raw);
    },
    async get_user_by_username(username) {
      const [raw] = await sql`SELECT * FROM users WHERE username_key = ${username_key(username)}`;
      return decode_or_null(user_spec, raw);
    },
    async find_users_by_email(email) {
      // lower() of both sides: the same ASCII case folding as SQLite's lower().
      const rows: unknown[] = await sql`SELECT * FROM users WHERE lower(email) = lower(${email}) ORDER BY created_at, id`;
      return rows.map((raw) => decode(user_spec, raw));
    },
    async list_users(options) {
      const rows: unknown[] = await sql`SELECT * FROM users ORDER BY username_key LIMIT ${options?.limit ?? null} OFFSET ${options?.offset ?? 0}`;
      return rows.map((raw) => decode(user_spec, raw));
    },
    async search_users(query) {
      const q = query.q === undefined || query.q === "" ? null : username_key(query.q);
      const q_email = q === null ? null : query.q!.toLowerCase();
      const after = query.after === undefined ? null : username_key(query.after);
      const rows: unknown[] = await sql`
        SELECT * FROM users WHERE (${after}::text IS NULL OR username_key > ${after})
          AND (${q}::text IS NULL OR starts_with(username_key, ${q}) OR starts_with(lower(email), ${q_email}))
        ORDER BY username_key LIMIT ${query.limit}`;
      return rows.map((raw) => decode(user_spec, raw));
    },
    async browse_users(query) {
      const typed = query.q === undefined || query.q === "" ? null : query.q;
      const filters = [typed?.toLowerCase() ?? null, typed === null ? null : username_key(typed), query.status ?? null, query.group_id ?? null, query.second_factor ?? null];
      const limit = Math.max(0, Math.min(query.limit, MAX_BROWSE_PAGE));
      const rows: unknown[] = await sql.unsafe(`SELECT * FROM users WHERE ${BROWSE_WHERE} ORDER BY ${BROWSE_ORDER[query.sort]} LIMIT $6 OFFSET $7`, [
        ...filters,
        limit,
        Math.max(0, query.offset),
      ]);
      const [count] = await sql.unsafe(`SELECT count(*) AS n FROM users WHERE ${BROWSE_WHERE}`, filters);
      return { users: rows.map((raw) => decode(user_spec, raw)), total: Number(count!.n) };
    },
    async update_user(id, patch, options) {
      checked_status(patch.status);
      const changes: Record<string, unknown> = encode_postgres(user_spec, pick_patch(user_spec, patch, ["id", "created_at", "version"]));
      changes.updated_at ??= now_seconds();
      if (patch.username !== undefined) changes.username_key = username_key(patch.username);
      // IfVersion in the UPDATE itself: concurrent UPDATEs of one row wait on its lock, and each
      // re-checks `version` on the row the one before committed, so one of them matches.
      const [raw] =
        options?.if_version === undefined
          ? await sql`UPDATE users SET ${sql(changes)}, version = version + 1 WHERE id = ${id} RETURNING *`
          : await sql`UPDATE users SET ${sql(changes)}, version = version + 1 WHERE id = ${id} AND version = ${options.if_version} RETURNING *`;
      return decode_or_null(user_spec, raw);
    },
    async delete_user(id, options) {
      const result =
        options?.if_version === undefined ? await sql`DELETE FROM users WHERE id = ${id}` : await sql`DELETE FROM users WHERE id = ${id} AND version = ${options.if_version}`;
      return result.count > 0;
    },
    async delete_stale_users(before, now, limit) {
      // Accounts never completed (delete_stale_users): unverified sign-ups without a live link, and
      // invitations whose every link expired before the cut-off. The tokens go with the user (CASCADE).
      // SKIP LOCKED: instances purging together take different rows.
      const rows: { id: string; username: string; email: string | null; status: string; created_at: string | number }[] = await sql`
        DELETE FROM users WHERE id IN (
          SELECT id FROM users u WHERE u.created_at <= ${before} AND (
            (u.status = 'unverified' AND NOT EXISTS (SELECT 1 FROM user_tokens t WHERE t.user_id = u.id AND t.purpose = 'email_verification' AND t.expires_at > ${now}))
            OR (u.status = 'invited' AND NOT EXISTS (SELECT 1 FROM user_tokens t WHERE t.user_id = u.id AND t.purpose = 'invitation' AND t.expires_at > ${before})))
          ORDER BY u.created_at, u.id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING id, username, email, status, created_at`;
      return rows
        .map((row) => ({ id: row.id, username: row.username, email: row.email, status: checked_status(row.status as UserStatus), created_at: Number(row.created_at) }))
        .sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1));
    },
    async set_recovery_codes(user_id, code_hashes, now) {
      const at = now ?? now_seconds();
      const rows = [...new Set(code_hashes)].map((code_hash) => ({ user_id: user_id, code_hash, created_at: at }));
      await sql.begin(async (tx) => {
        await tx`DELETE FROM user_recovery_codes WHERE user_id = ${user_id}`;
        if (rows.length > 0) await tx`INSERT INTO user_recovery_codes ${sql(rows)}`;
      });
    },
    async consume_recovery_code(user_id, code_hash, now) {
      const result = await sql`
        UPDATE user_recovery_codes SET used_at = ${now ?? now_seconds()}
        WHERE user_id = ${user_id} AND code_hash = ${code_hash} AND used_at IS NULL`;
      return result.count === 1;
    },
    async count_recovery_codes(user_id) {
      const [row] = await sql`SELECT count(*) AS n FROM user_recovery_codes WHERE user_id = ${user_id} AND used_at IS NULL`;
      return Number(row?.n ?? 0);
    },
    async count_foreign_password_hashes() {
      const [row] = await sql`SELECT count(*) AS n FROM users WHERE password_hash <> '' AND substr(password_hash, 1, 10) <> '$argon2id$'`;
      return Number(row?.n ?? 0);
    },
  };
}
