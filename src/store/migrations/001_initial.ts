/**
 * Version 1: the whole initial schema. One text for both databases with the column types
 * filled in per dialect (SQLite STRICT tables: INTEGER/TEXT; PostgreSQL: bigint/boolean/jsonb).
 * Child tables index their foreign keys so cascading deletes stay cheap.
 */
import type { Migration } from "./migration.ts";

type Dialect = { int: string; bool: string; json: string; serial: string; strict: string };

const sqlite: Dialect = { int: "INTEGER", bool: "INTEGER", json: "TEXT", serial: "INTEGER PRIMARY KEY AUTOINCREMENT", strict: " STRICT" };
const postgres: Dialect = { int: "BIGINT", bool: "BOOLEAN", json: "JSONB", serial: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", strict: "" };

function schema(d: Dialect): string {
  const { int, bool, json, strict } = d;
  return `
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  username TEXT NOT NULL,
  username_key TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  name TEXT,
  given_name TEXT,
  family_name TEXT,
  picture TEXT,
  email TEXT,
  email_verified ${bool} NOT NULL,
  phone_number TEXT,
  phone_number_verified ${bool} NOT NULL,
  address ${json},
  totp_secret TEXT,
  totp_enabled_at ${int},
  created_at ${int} NOT NULL,
  updated_at ${int} NOT NULL
)${strict};

CREATE TABLE user_recovery_codes (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_hash TEXT NOT NULL,
  created_at ${int} NOT NULL,
  used_at ${int},
  PRIMARY KEY (user_id, code_hash)
)${strict};

CREATE TABLE clients (
  client_id TEXT PRIMARY KEY,
  client_secret_hash TEXT,
  client_secret_expires_at ${int} NOT NULL,
  client_id_issued_at ${int} NOT NULL,
  registration_access_token_hash TEXT UNIQUE,
  metadata ${json} NOT NULL,
  created_at ${int} NOT NULL,
  updated_at ${int} NOT NULL
)${strict};

CREATE TABLE sessions (
  id_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  auth_time ${int} NOT NULL,
  amr ${json} NOT NULL,
  acr TEXT,
  created_at ${int} NOT NULL,
  expires_at ${int} NOT NULL,
  last_seen_at ${int} NOT NULL
)${strict};
CREATE INDEX sessions_user_id ON sessions (user_id);
CREATE INDEX sessions_expires_at ON sessions (expires_at);

CREATE TABLE interactions (
  id TEXT PRIMARY KEY,
  params ${json} NOT NULL,
  session_id_hash TEXT,
  result ${json},
  created_at ${int} NOT NULL,
  expires_at ${int} NOT NULL
)${strict};
CREATE INDEX interactions_expires_at ON interactions (expires_at);

CREATE TABLE grants (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  client_id TEXT NOT NULL REFERENCES clients(client_id) ON DELETE CASCADE,
  scopes ${json} NOT NULL,
  claims ${json},
  created_at ${int} NOT NULL,
  updated_at ${int} NOT NULL,
  PRIMARY KEY (user_id, client_id)
)${strict};
CREATE INDEX grants_client_id ON grants (client_id);

CREATE TABLE codes (
  code_hash TEXT PRIMARY KEY,
  client_id TEXT NOT NULL REFERENCES clients(client_id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  session_id_hash TEXT,
  redirect_uri TEXT NOT NULL,
  scope TEXT NOT NULL,
  nonce TEXT,
  code_challenge TEXT,
  code_challenge_method TEXT,
  auth_time ${int} NOT NULL,
  acr TEXT,
  amr ${json} NOT NULL,
  claims ${json},
  grant_id TEXT NOT NULL,
  created_at ${int} NOT NULL,
  expires_at ${int} NOT NULL,
  consumed_at ${int}
)${strict};
CREATE INDEX codes_client_id ON codes (client_id);
CREATE INDEX codes_user_id ON codes (user_id);
CREATE INDEX codes_expires_at ON codes (expires_at);

CREATE TABLE tokens (
  token_hash TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
  client_id TEXT NOT NULL REFERENCES clients(client_id) ON DELETE CASCADE,
  user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
  scope TEXT NOT NULL,
  grant_id TEXT NOT NULL,
  family_id TEXT,
  session_id_hash TEXT,
  auth_time ${int},
  acr TEXT,
  amr ${json} NOT NULL,
  claims ${json},
  nonce TEXT,
  created_at ${int} NOT NULL,
  expires_at ${int} NOT NULL,
  revoked_at ${int},
  rotated_at ${int}
)${strict};
CREATE INDEX tokens_client_id ON tokens (client_id);
CREATE INDEX tokens_user_client ON tokens (user_id, client_id);
CREATE INDEX tokens_grant_id ON tokens (grant_id);
CREATE INDEX tokens_family_id ON tokens (family_id);
CREATE INDEX tokens_session_id_hash ON tokens (session_id_hash);
CREATE INDEX tokens_expires_at ON tokens (expires_at);

CREATE TABLE signing_keys (
  kid TEXT PRIMARY KEY,
  alg TEXT NOT NULL,
  use TEXT NOT NULL,
  private_jwk ${json} NOT NULL,
  public_jwk ${json} NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('next', 'active', 'retired')),
  created_at ${int} NOT NULL,
  activated_at ${int},
  retire_at ${int},
  updated_at ${int} NOT NULL
)${strict};

CREATE TABLE store_meta (
  name TEXT PRIMARY KEY,
  value ${int} NOT NULL
)${strict};
INSERT INTO store_meta (name, value) VALUES ('keys_version', 0);

CREATE TABLE initial_access_tokens (
  token_hash TEXT PRIMARY KEY,
  created_at ${int} NOT NULL,
  expires_at ${int}
)${strict};

CREATE TABLE used_jtis (
  client_id TEXT NOT NULL,
  jti TEXT NOT NULL,
  expires_at ${int} NOT NULL,
  PRIMARY KEY (client_id, jti)
)${strict};
CREATE INDEX used_jtis_expires_at ON used_jtis (expires_at);

CREATE TABLE counters (
  key TEXT PRIMARY KEY,
  count ${int} NOT NULL,
  reset_at ${int} NOT NULL
)${strict};
CREATE INDEX counters_reset_at ON counters (reset_at);

CREATE TABLE audit_events (
  id ${d.serial},
  at ${int} NOT NULL,
  type TEXT NOT NULL,
  user_id TEXT,
  client_id TEXT,
  ip TEXT,
  outcome TEXT NOT NULL,
  details ${json}
)${strict};
CREATE INDEX audit_events_at ON audit_events (at);
CREATE INDEX audit_events_user_at ON audit_events (user_id, at);
CREATE INDEX audit_events_client_at ON audit_events (client_id, at);
`;
}

export const initial_schema: Migration = {
  version: 1,
  name: "initial schema",
  sqlite: schema(sqlite),
  postgres: schema(postgres),
};
