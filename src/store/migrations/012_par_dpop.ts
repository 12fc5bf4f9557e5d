/**
 * Version 12: pushed authorization requests (RFC 9126) and DPoP-bound tokens (RFC 9449).
 *
 * - `pushed_requests`: the parameters of a request pushed to the PAR endpoint, keyed by the
 *   SHA-256 of the random part of its `request_uri` (the reference itself is never stored), with
 *   the client that pushed it and a short expiry (RFC 9126 §2.2). Consumed (deleted) atomically
 *   by /authorize: single use (RFC 9126 §4). Deleted with the client.
 * - `tokens.jkt`: the JWK SHA-256 thumbprint (RFC 7638) of the DPoP key an access or refresh token
 *   is bound to (RFC 9449 §6); NULL for bearer tokens and for tokens issued before this version.
 * - `codes.dpop_jkt`: the key an authorization code is bound to (RFC 9449 §10: the `dpop_jkt`
 *   authorization request parameter, or the DPoP proof of a pushed request); the code is then
 *   redeemed only with a proof of that key.
 */
import type { Migration } from "./migration.ts";

function schema(int: string, json: string, strict: string): string {
  return `
CREATE TABLE pushed_requests (
  request_uri_hash TEXT PRIMARY KEY,
  client_id TEXT NOT NULL REFERENCES clients(client_id) ON DELETE CASCADE,
  params ${json} NOT NULL,
  created_at ${int} NOT NULL,
  expires_at ${int} NOT NULL
)${strict};
CREATE INDEX pushed_requests_client_id ON pushed_requests (client_id);
CREATE INDEX pushed_requests_expires_at ON pushed_requests (expires_at);

ALTER TABLE tokens ADD COLUMN jkt TEXT;
ALTER TABLE codes ADD COLUMN dpop_jkt TEXT;
`;
}

export const par_dpop: Migration = {
  version: 12,
  name: "pushed authorization requests and DPoP",
  sqlite: schema("INTEGER", "TEXT", " STRICT"),
  postgres: schema("BIGINT", "JSONB", ""),
};
