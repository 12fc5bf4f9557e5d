/**
 * Version 11: an index on `lower(email)`. Sign-up, invitations and e-mail change look accounts
 * up by address (`find_users_by_email`, `lower(email) = lower(?)`), and the admin API searches
 * by address prefix; without it each of those read the whole users table. The same expression
 * on both databases, so both planners match it (tests/store/sqlite_plans.test.ts checks SQLite).
 */
import type { Migration } from "./migration.ts";

const sql = `CREATE INDEX users_email_lower ON users (lower(email));`;

export const user_email_index: Migration = {
  version: 11,
  name: "user e-mail index",
  sqlite: sql,
  postgres: sql,
};
