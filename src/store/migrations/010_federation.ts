/**
 * Version 10: sign-in with other identity providers (federation).
 *
 * - `upstreams`: one per identity provider the operator configured, by a unique `name` (the path
 *   segment of its redirect URI). `kind` oidc (configured from `issuer`'s discovery document) or
 *   oauth2 (explicit `authorization_endpoint`, `token_endpoint`, `userinfo_endpoint`, and optionally a
 *   GitHub-style `emails_endpoint` listing the user's addresses with their verification). The client
 *   secret must be sent to the upstream, so it cannot be hashed: it is kept encrypted
 *   (AES-256-GCM, oidc/federation/secret_box.ts) in `client_secret_enc`.
 * - `federated_identities`: an upstream account (upstream, subject) linked to a local user;
 *   one local user per upstream account (primary key), deleted with the user (ON DELETE CASCADE).
 * - `upstream_states`: a pending upstream sign-in, by the SHA-256 of its `state`: the PKCE
 *   verifier and nonce (both single use, RFC 7636 §4.1, OIDC Core §3.1.2.1), the interaction it
 *   resumes, the browser it is bound to. Consumed once, purged when expired.
 */
import type { Migration } from "./migration.ts";

function schema(int: string, bool: string, json: string, strict: string): string {
  return `
CREATE TABLE upstreams (
  name TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('oidc', 'oauth2')),
  display_name TEXT NOT NULL,
  issuer TEXT,
  authorization_endpoint TEXT,
  token_endpoint TEXT,
  userinfo_endpoint TEXT,
  emails_endpoint TEXT,
  client_id TEXT NOT NULL,
  client_secret_enc TEXT,
  scopes ${json} NOT NULL,
  policy TEXT NOT NULL CHECK (policy IN ('jit', 'link')),
  auto_link ${bool} NOT NULL,
  claim_mapping ${json} NOT NULL,
  enabled ${bool} NOT NULL,
  created_at ${int} NOT NULL,
  updated_at ${int} NOT NULL
)${strict};

CREATE TABLE federated_identities (
  upstream TEXT NOT NULL,
  subject TEXT NOT NULL,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  email TEXT,
  created_at ${int} NOT NULL,
  last_used_at ${int},
  PRIMARY KEY (upstream, subject)
)${strict};
CREATE INDEX federated_identities_user_id ON federated_identities (user_id);

CREATE TABLE upstream_states (
  state_hash TEXT PRIMARY KEY,
  upstream TEXT NOT NULL,
  data ${json} NOT NULL,
  expires_at ${int} NOT NULL
)${strict};
CREATE INDEX upstream_states_expires_at ON upstream_states (expires_at);
`;
}

export const federation: Migration = {
  version: 10,
  name: "federation",
  sqlite: schema("INTEGER", "INTEGER", "TEXT", " STRICT"),
  postgres: schema("BIGINT", "BOOLEAN", "JSONB", ""),
};
