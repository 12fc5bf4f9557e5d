/**
 * Version 25: forward authentication for applications behind a reverse proxy (oidc/forward_auth/).
 *
 * - `protected_apps`: the applications an operator registered (`idp apps add`), by name; `host`
 *   (lower case, with a port other than the scheme's default) and `path` are read from `url` and
 *   unique together; `allowed_groups` and `rules` are JSON arrays (the access rules per path
 *   prefix). The forward-auth check reads the applications of one host through that unique index.
 * - `forward_auth_tokens`: the SHA-256 of each forward-auth cookie value, bound to the browser
 *   session it stands for; it goes with the session (ON DELETE CASCADE), so a sign-out ends the
 *   applications' access at their next request.
 * - `protected_app_access`: which session opened which application, so the first access of a
 *   session is audited once; it goes with the session and with the application.
 */
import type { Migration } from "./migration.ts";

function schema(int: string, json: string, bool: string, strict: string): string {
  return `
CREATE TABLE protected_apps (
  name TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  host TEXT NOT NULL,
  path TEXT NOT NULL,
  allowed_groups ${json} NOT NULL,
  require_2fa ${bool} NOT NULL,
  rules ${json} NOT NULL,
  created_at ${int} NOT NULL,
  updated_at ${int} NOT NULL,
  UNIQUE (host, path)
)${strict};

CREATE TABLE forward_auth_tokens (
  id_hash TEXT PRIMARY KEY,
  session_id_hash TEXT NOT NULL REFERENCES sessions(id_hash) ON DELETE CASCADE,
  created_at ${int} NOT NULL
)${strict};
CREATE INDEX forward_auth_tokens_session ON forward_auth_tokens (session_id_hash);

CREATE TABLE protected_app_access (
  session_id_hash TEXT NOT NULL REFERENCES sessions(id_hash) ON DELETE CASCADE,
  app_name TEXT NOT NULL REFERENCES protected_apps(name) ON DELETE CASCADE,
  created_at ${int} NOT NULL,
  PRIMARY KEY (session_id_hash, app_name)
)${strict};
CREATE INDEX protected_app_access_app ON protected_app_access (app_name);
`;
}

export const forward_auth: Migration = {
  version: 25,
  name: "forward authentication",
  sqlite: schema("INTEGER", "TEXT", "INTEGER", " STRICT"),
  postgres: schema("BIGINT", "JSONB", "BOOLEAN", ""),
};
