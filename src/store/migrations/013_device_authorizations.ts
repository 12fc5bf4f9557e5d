/**
 * Version 13: the device authorization grant (RFC 8628).
 *
 * `device_authorizations`: one row per device authorization request (RFC 8628 §3.1), keyed by the
 * SHA-256 of its `device_code` (a 256-bit secret, never stored). The `user_code` is short and low
 * in entropy (§6.1), yet it is only ever looked up, never shown again: it is stored as the SHA-256
 * of its normalized form too (unique, so a new code never collides with a live one). `status`:
 * pending, approved or denied by the user, used once the device has redeemed it (a device code
 * yields tokens once, §3.5 with RFC 6749 §4.1.2's single-use reasoning). The authentication of the
 * approving user (auth_time, amr, acr, session) travels to the ID Token as the code grant's does.
 * `poll_interval` and `last_polled_at` carry the polling rate (§3.5 slow_down). Deleted with the client
 * or the user, and by the purge once expired.
 */
import type { Migration } from "./migration.ts";

function schema(int: string, json: string, strict: string): string {
  return `
CREATE TABLE device_authorizations (
  device_code_hash TEXT PRIMARY KEY,
  user_code_hash TEXT NOT NULL UNIQUE,
  client_id TEXT NOT NULL REFERENCES clients(client_id) ON DELETE CASCADE,
  scope TEXT NOT NULL,
  claims ${json},
  status TEXT NOT NULL,
  user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
  session_id_hash TEXT,
  auth_time ${int},
  amr ${json},
  acr TEXT,
  grant_id TEXT NOT NULL,
  poll_interval ${int} NOT NULL,
  last_polled_at ${int},
  created_at ${int} NOT NULL,
  expires_at ${int} NOT NULL
)${strict};
CREATE INDEX device_authorizations_client_id ON device_authorizations (client_id);
CREATE INDEX device_authorizations_user_id ON device_authorizations (user_id);
CREATE INDEX device_authorizations_expires_at ON device_authorizations (expires_at);
`;
}

export const device_authorizations: Migration = {
  version: 13,
  name: "device authorizations",
  sqlite: schema("INTEGER", "TEXT", " STRICT"),
  postgres: schema("BIGINT", "JSONB", ""),
};
