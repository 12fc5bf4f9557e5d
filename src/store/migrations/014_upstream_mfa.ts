/**
 * Version 14: what an upstream identity provider's word about its own sign-in counts for here.
 *
 * - `trust_upstream_mfa`: when true (an operator's opt-in per upstream; false by default: saying
 *   who the user is does not make the upstream's word on its own second factor ours), the
 *   upstream's multi-factor methods (`amr` otp, mfa, hwk, swk…, RFC 8176 §2) and its `acr` values listed in `mfa_acr_values` stand in for the local account's second
 *   factor; when false, a local second factor is asked for after every sign-in through it.
 * - `mfa_acr_values`: the upstream's `acr` values (OIDC Core §2) the operator counts as our class
 *   `mfa` (an upstream's acr vocabulary is its own: nothing else is interpreted).
 * - `token_endpoint_auth_method`: how we authenticate at the upstream's token endpoint: null is
 *   `client_secret_post` with a secret, none without one; `private_key_jwt` signs an assertion
 *   with our own signing key (OIDC Core §9, RFC 7523), published in our JWKS.
 */
import type { Migration } from "./migration.ts";

function sql(bool_false: string, empty_json: string): string {
  return `
ALTER TABLE upstreams ADD COLUMN trust_upstream_mfa ${bool_false};
ALTER TABLE upstreams ADD COLUMN mfa_acr_values ${empty_json};
ALTER TABLE upstreams ADD COLUMN token_endpoint_auth_method TEXT;
`;
}

export const upstream_mfa: Migration = {
  version: 14,
  name: "upstream mfa",
  sqlite: sql("INTEGER NOT NULL DEFAULT 0", "TEXT NOT NULL DEFAULT '[]'"),
  postgres: sql("BOOLEAN NOT NULL DEFAULT FALSE", "JSONB NOT NULL DEFAULT '[]'::jsonb"),
};
