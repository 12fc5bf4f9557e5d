/**
 * Version 5: usernames keyed by NFKC and case folding (store/usernames.ts) instead of NFC and
 * lower case, so one account has one key whatever the spelling (a fullwidth "ａlice" and "alice").
 * `username_key` of every row is recomputed; the names as created (`username`) are kept.
 *
 * Two accounts that the new rule makes one name would lose one of them to the UNIQUE key: the
 * migration refuses instead, naming both, and changes nothing; the administrator renames or
 * removes one (with the previous release, or in SQL) and starts again. Keys are moved through a
 * temporary value first, so rows that trade keys never meet the UNIQUE constraint half-way.
 */
import { StoreError } from "../types/errors.ts";
import { username_key } from "../usernames.ts";
import type { Migration } from "./migration.ts";

type UserKeyRow = { id: string; username: string; username_key: string };

/** U+FB01 (ﬁ) is never in a key: NFKC maps it to "fi". */
const TEMPORARY = "\uFB01migrating:";

/** The [key, id] updates of the rows whose key changes: a temporary key first, then the new one. */
export function rekey_usernames(rows: Record<string, unknown>[]): unknown[][] {
  const users = rows as UserKeyRow[];
  const by_key = new Map<string, UserKeyRow>();
  for (const user of users) {
    const key = username_key(user.username);
    const other = by_key.get(key);
    if (other !== undefined) {
      throw new StoreError(
        `migration 5 (username NFKC): the accounts "${other.username}" (id ${other.id}) and "${user.username}" (id ${user.id}) are one username under Unicode NFKC and case folding ("${key}"); rename or remove one of them with the previous release, then start again`,
      );
    }
    by_key.set(key, user);
  }
  const changed = users.filter((user) => username_key(user.username) !== user.username_key);
  return [...changed.map((user) => [`${TEMPORARY}${user.id}`, user.id]), ...changed.map((user) => [username_key(user.username), user.id])];
}

export const username_nfkc: Migration = {
  version: 5,
  name: "username nfkc",
  sqlite: "",
  postgres: "",
  rows: {
    select: "SELECT id, username, username_key FROM users ORDER BY created_at, id",
    rewrite: rekey_usernames,
    update_sqlite: "UPDATE users SET username_key = ?1 WHERE id = ?2",
    update_postgres: "UPDATE users SET username_key = $1 WHERE id = $2",
  },
};
