/**
 * Version 4: initial access tokens (RFC 7591 §3) get a public id, so `idp registration-token
 * list` and `revoke` can name a token without showing it or its hash, and an optional number of
 * registrations left (`uses_left`, NULL: no limit), taken atomically at each registration.
 *
 * Tokens made before keep their expiry and have no use limit; each gets a random id. The id
 * column stays nullable (a column added to existing rows cannot be NOT NULL without a default on
 * SQLite); the store writes one for every new token, and the unique index keeps them distinct.
 */
import type { Migration } from "./migration.ts";

const script = (int: string) => `
ALTER TABLE initial_access_tokens ADD COLUMN id TEXT;
ALTER TABLE initial_access_tokens ADD COLUMN uses_left ${int};
CREATE UNIQUE INDEX initial_access_tokens_id ON initial_access_tokens (id);
`;

/** [id, token_hash] for every token made before this version. */
export function initial_access_token_ids(rows: Record<string, unknown>[]): unknown[][] {
  return rows.map((row) => [crypto.randomUUID(), row.token_hash]);
}

export const initial_access_token_limits: Migration = {
  version: 4,
  name: "initial access token limits",
  sqlite: script("INTEGER"),
  postgres: script("BIGINT"),
  rows: {
    select: "SELECT token_hash FROM initial_access_tokens ORDER BY created_at, token_hash",
    rewrite: initial_access_token_ids,
    update_sqlite: "UPDATE initial_access_tokens SET id = ?1 WHERE token_hash = ?2",
    update_postgres: "UPDATE initial_access_tokens SET id = $1 WHERE token_hash = $2",
  },
};
