/**
 * Version 7: accounts that run themselves.
 *
 * - `user_tokens`: the single-use links mailed to a user (password reset, e-mail verification,
 *   invitation, e-mail change), stored as the SHA-256 of the token, never the token. A user's
 *   tokens go with the user (ON DELETE CASCADE); expired ones are purged.
 * - `users.status`: `active` (signs in), `unverified` (signed up, address not yet proven),
 *   `invited` (no password chosen yet), `disabled` (refused). Existing users are active. No CHECK
 *   on the column: adding a status later must not need a rebuild of the users table on SQLite;
 *   the store refuses values it does not know (store/rows/users.ts).
 */
import type { Migration } from "./migration.ts";

function schema(int: string, strict: string): string {
  return `
ALTER TABLE users ADD COLUMN status TEXT NOT NULL DEFAULT 'active';

CREATE TABLE user_tokens (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  purpose TEXT NOT NULL CHECK (purpose IN ('password_reset', 'email_verification', 'invitation', 'email_change')),
  email TEXT,
  created_at ${int} NOT NULL,
  expires_at ${int} NOT NULL
)${strict};
CREATE INDEX user_tokens_user_purpose ON user_tokens (user_id, purpose);
CREATE INDEX user_tokens_expires_at ON user_tokens (expires_at);
`;
}

export const user_tokens: Migration = {
  version: 7,
  name: "user tokens and user status",
  sqlite: schema("INTEGER", " STRICT"),
  postgres: schema("BIGINT", ""),
};
