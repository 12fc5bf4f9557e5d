/**
 * Version 8: passkeys (WebAuthn Level 3) and their single-use challenges.
 *
 * `passkeys`: one row per credential a user registered. `credential_id` is the credential's id
 * (base64url, WebAuthn §6.1 "credentialId"), unique across users; `id` is our own short id for
 * the account page and the CLI. `public_key` is the COSE key (base64url), `counter` the last
 * signature counter seen (§6.1.1), `backup_eligible`/`backup_state` the BE/BS flags (§6.3.3).
 *
 * `webauthn_challenges`: each ceremony's challenge (§13.4.3: random, at least 16 bytes), stored
 * as its SHA-256, with what it is for and whom, taken atomically once, and purged when expired.
 */
import type { Migration } from "./migration.ts";

const script = (int: string, bool: string, json: string, strict: string) => `
CREATE TABLE passkeys (
  id TEXT PRIMARY KEY,
  credential_id TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  public_key TEXT NOT NULL,
  counter ${int} NOT NULL,
  transports ${json} NOT NULL,
  backup_eligible ${bool} NOT NULL,
  backup_state ${bool} NOT NULL,
  aaguid TEXT,
  name TEXT NOT NULL,
  created_at ${int} NOT NULL,
  last_used_at ${int}
)${strict};
CREATE INDEX passkeys_user_id ON passkeys (user_id);

CREATE TABLE webauthn_challenges (
  challenge_hash TEXT PRIMARY KEY,
  purpose TEXT NOT NULL,
  binding_hash TEXT NOT NULL,
  user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
  created_at ${int} NOT NULL,
  expires_at ${int} NOT NULL
)${strict};
CREATE INDEX webauthn_challenges_expires_at ON webauthn_challenges (expires_at);
`;

export const passkeys: Migration = {
  version: 8,
  name: "passkeys",
  sqlite: script("INTEGER", "INTEGER", "TEXT", " STRICT"),
  postgres: script("BIGINT", "BOOLEAN", "JSONB", ""),
};
