/**
 * Version 9: groups of users, and where a browser session was started.
 *
 * - `groups`: a name unique case-insensitively (`name_key`, store/group_names.ts), a description,
 *   a creation time. `group_members` links groups and users; deleting either deletes the links
 *   (ON DELETE CASCADE both ways). The user's groups are read on the token path in one indexed
 *   query (`group_members_user_id`).
 * - `sessions.user_agent` and `sessions.ip`: the browser and address a session was started from,
 *   shown on the account page so a user can recognise (and end) a session that is not theirs.
 *   Sessions made before this version have neither (NULL).
 */
import type { Migration } from "./migration.ts";

function schema(int: string, strict: string): string {
  return `
CREATE TABLE groups (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL UNIQUE,
  description TEXT,
  created_at ${int} NOT NULL
)${strict};

CREATE TABLE group_members (
  group_id TEXT NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at ${int} NOT NULL,
  PRIMARY KEY (group_id, user_id)
)${strict};
CREATE INDEX group_members_user_id ON group_members (user_id);

ALTER TABLE sessions ADD COLUMN user_agent TEXT;
ALTER TABLE sessions ADD COLUMN ip TEXT;
`;
}

export const groups: Migration = {
  version: 9,
  name: "groups",
  sqlite: schema("INTEGER", " STRICT"),
  postgres: schema("BIGINT", ""),
};
