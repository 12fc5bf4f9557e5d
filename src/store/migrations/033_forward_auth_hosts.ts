/**
 * Version 33: forward authentication for applications outside the cookie domain, through a
 * callback on the application's own host (oidc/forward_auth/callback.ts).
 *
 * - `forward_auth_tokens.host`: null for the cookie on the cookie domain (as before); else the one
 *   host whose host-only cookie the token is, and where alone the check accepts it.
 * - `forward_auth_codes`: the one-time codes the start step hands to an application's callback,
 *   by the SHA-256 of the code, bound to the browser session (going with it) and the
 *   application's host, with the URL to return to; taken (deleted) by their one exchange.
 *
 * 028 to 032 are taken by changes made at the same time as this one.
 */
import type { Migration } from "./migration.ts";

function schema(int: string, strict: string): string {
  return `
ALTER TABLE forward_auth_tokens ADD COLUMN host TEXT;

CREATE TABLE forward_auth_codes (
  code_hash TEXT PRIMARY KEY,
  session_id_hash TEXT NOT NULL REFERENCES sessions(id_hash) ON DELETE CASCADE,
  host TEXT NOT NULL,
  target TEXT NOT NULL,
  expires_at ${int} NOT NULL,
  created_at ${int} NOT NULL
)${strict};
CREATE INDEX forward_auth_codes_session ON forward_auth_codes (session_id_hash);
CREATE INDEX forward_auth_codes_expires ON forward_auth_codes (expires_at);
`;
}

export const forward_auth_hosts: Migration = {
  version: 33,
  name: "forward authentication hosts",
  sqlite: schema("INTEGER", " STRICT"),
  postgres: schema("BIGINT", ""),
};
