/** SQLite: users and their recovery codes. */
import type { SqliteDatabase } from "./driver.ts";
import type { Sync } from "./group_commit.ts";
import { columns, decode, decode_or_null, encode_sqlite, pick_patch } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import { checked_status, user_row, user_spec } from "../rows/users.ts";
import { username_key } from "../usernames.ts";
import { MAX_BROWSE_PAGE, type UserRow, type UserStatus, type UserStore } from "../types.ts";
import { insert_sql, limit_of, update_sql } from "./sql.ts";

/** The greatest code point: `prefix <= x < prefix + PREFIX_END` is "x starts with prefix". */
const PREFIX_END = "\u{10FFFF}";

export function sqlite_users(db: SqliteDatabase): Sync<UserStore> {
  const cols = [...columns(user_spec), "username_key"];
  const insert = db.prepare(insert_sql("users", cols));
  const update = db.prepare(update_sql("users", cols, ["id"]));
  const by_id = db.prepare("SELECT * FROM users WHERE id = $id");
  const by_key = db.prepare("SELECT * FROM users WHERE username_key = $key");
  const by_email = db.prepare("SELECT * FROM users WHERE lower(email) = lower($email) ORDER BY created_at, id");
  const list = db.prepare("SELECT * FROM users ORDER BY username_key LIMIT $limit OFFSET $offset");
  // Keyset page: the username range uses the UNIQUE index on username_key (BINARY collation).
  const search = db.prepare(
    `SELECT * FROM users WHERE ($after IS NULL OR username_key > $after)
       AND ($q IS NULL OR (username_key >= $q AND username_key < $q_end) OR (lower(email) >= $q_email AND lower(email) < $q_email_end))
     ORDER BY username_key LIMIT $limit`,
  );
  // browse_users (types/users.ts UserBrowse): a substring cannot walk an index, so the page and
  // its count each read the table once; the page size is bounded (MAX_BROWSE_PAGE). The group
  // and passkey tests walk their primary key and passkeys_user_id.
  const browse_where = `($q IS NULL OR instr(username_key, $q_key) > 0 OR instr(lower(email), $q) > 0 OR instr(lower(name), $q) > 0)
       AND ($status IS NULL OR status = $status)
       AND ($group_id IS NULL OR EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = $group_id AND m.user_id = users.id))
       AND ($second_factor IS NULL OR (totp_enabled_at IS NOT NULL OR EXISTS (SELECT 1 FROM passkeys p WHERE p.user_id = users.id)) = $second_factor)`;
  const browse = {
    username: db.prepare(`SELECT * FROM users WHERE ${browse_where} ORDER BY username_key LIMIT $limit OFFSET $offset`),
    created: db.prepare(`SELECT * FROM users WHERE ${browse_where} ORDER BY created_at DESC, username_key LIMIT $limit OFFSET $offset`),
  };
  const browse_count = db.prepare(`SELECT count(*) AS n FROM users WHERE ${browse_where}`);
  const remove = db.prepare("DELETE FROM users WHERE id = $id");
  const remove_at_version = db.prepare("DELETE FROM users WHERE id = $id AND version = $version");
  // Accounts never completed (delete_stale_users): unverified sign-ups without a live link, and
  // invitations whose every link expired before the cut-off. The tokens go with the user (CASCADE).
  const stale = db.prepare(
    `SELECT id, username, email, status, created_at FROM users u WHERE u.created_at <= $before AND (
       (u.status = 'unverified' AND NOT EXISTS (SELECT 1 FROM user_tokens t WHERE t.user_id = u.id AND t.purpose = 'email_verification' AND t.expires_at > $now))
       OR (u.status = 'invited' AND NOT EXISTS (SELECT 1 FROM user_tokens t WHERE t.user_id = u.id AND t.purpose = 'invitation' AND t.expires_at > $before)))
     ORDER BY u.created_at, u.id LIMIT $limit`,
  );
  const delete_stale_tx = db.transaction((before: number, now: number, limit: number) => {
    const rows = stale.all({ before, now, limit }) as { id: string; username: string; email: string | null; status: string; created_at: number }[];
    for (const row of rows) remove.run({ id: row.id });
    return rows.map((row) => ({ ...row, status: checked_status(row.status as UserStatus) }));
  });
  const clear_codes = db.prepare("DELETE FROM user_recovery_codes WHERE user_id = $user_id");
  const add_code = db.prepare("INSERT INTO user_recovery_codes (user_id, code_hash, created_at) VALUES ($user_id, $code_hash, $now)");
  const use_code = db.prepare("UPDATE user_recovery_codes SET used_at = $now WHERE user_id = $user_id AND code_hash = $code_hash AND used_at IS NULL");
  const count_foreign = db.prepare("SELECT count(*) AS n FROM users WHERE password_hash <> '' AND substr(password_hash, 1, 10) <> '$argon2id$'");
  const count_codes = db.prepare("SELECT count(*) AS n FROM user_recovery_codes WHERE user_id = $user_id AND used_at IS NULL");

  const bind = (row: UserRow) => ({ ...encode_sqlite(user_spec, row), username_key: username_key(row.username) });
  const get = (id: string) => decode_or_null(user_spec, by_id.get({ id }));

  // Read, compare and write in one transaction (inside the group commit's batch, which holds the
  // write lock): no other write can come between the version read and the UPDATE (IfVersion).
  const update_tx = db.transaction((id: string, patch: Partial<UserRow>, if_version: number | undefined): UserRow | null => {
    const current = get(id);
    if (!current) return null;
    if (if_version !== undefined && current.version !== if_version) return null;
    checked_status(patch.status);
    const next: UserRow = { ...current, ...pick_patch(user_spec, patch, ["id", "created_at", "version"]), version: current.version + 1 };
    if (patch.updated_at === undefined) next.updated_at = now_seconds();
    update.run(bind(next));
    return next;
  });

  const set_codes_tx = db.transaction((user_id: string, hashes: string[], now: number) => {
    clear_codes.run({ user_id: user_id });
    for (const hash of new Set(hashes)) add_code.run({ user_id: user_id, code_hash: hash, now });
  });

  return {
    create_user(input) {
      const row = user_row(input);
      insert.run(bind(row));
      return row;
    },
    get_user_by_id(id) {
      return get(id);
    },
    get_user_by_username(username) {
      return decode_or_null(user_spec, by_key.get({ key: username_key(username) }));
    },
    find_users_by_email(email) {
      return by_email.all({ email }).map((raw) => decode(user_spec, raw));
    },
    list_users(options) {
      return list.all(limit_of(options)).map((raw) => decode(user_spec, raw));
    },
    search_users(query) {
      const q = query.q === undefined || query.q === "" ? null : username_key(query.q);
      const q_email = query.q === undefined || query.q === "" ? null : query.q.toLowerCase();
      return search
        .all({
          after: query.after === undefined ? null : username_key(query.after),
          q,
          q_end: q === null ? null : `${q}${PREFIX_END}`,
          q_email,
          q_email_end: q_email === null ? null : `${q_email}${PREFIX_END}`,
          limit: query.limit,
        })
        .map((raw) => decode(user_spec, raw));
    },
    browse_users(query) {
      const typed = query.q === undefined || query.q === "" ? null : query.q;
      const filters = {
        // SQLite's lower() folds ASCII only: fold the same letters of what was typed, no more.
        q: typed === null ? null : typed.replace(/[A-Z]/g, (letter) => letter.toLowerCase()),
        q_key: typed === null ? null : username_key(typed),
        status: query.status ?? null,
        group_id: query.group_id ?? null,
        second_factor: query.second_factor === undefined ? null : query.second_factor ? 1 : 0,
      };
      const limit = Math.max(0, Math.min(query.limit, MAX_BROWSE_PAGE));
      const users = browse[query.sort].all({ ...filters, limit, offset: Math.max(0, query.offset) }).map((raw) => decode(user_spec, raw));
      const total = (browse_count.get(filters) as { n: number }).n;
      return { users, total };
    },
    update_user(id, patch, options) {
      return update_tx.immediate(id, patch, options?.if_version);
    },
    delete_user(id, options) {
      if (options?.if_version !== undefined) return remove_at_version.run({ id, version: options.if_version }).changes > 0;
      return remove.run({ id }).changes > 0;
    },
    delete_stale_users(before, now, limit) {
      return delete_stale_tx.immediate(before, now, limit);
    },
    set_recovery_codes(user_id, code_hashes, now) {
      set_codes_tx.immediate(user_id, code_hashes, now ?? now_seconds());
    },
    consume_recovery_code(user_id, code_hash, now) {
      return use_code.run({ user_id: user_id, code_hash: code_hash, now: now ?? now_seconds() }).changes === 1;
    },
    count_recovery_codes(user_id) {
      const row = count_codes.get({ user_id: user_id }) as { n: number } | null;
      return row?.n ?? 0;
    },
    count_foreign_password_hashes() {
      const row = count_foreign.get({}) as { n: number } | null;
      return row?.n ?? 0;
    },
  };
}
