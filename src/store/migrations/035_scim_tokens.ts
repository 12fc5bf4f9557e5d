/**
 * Version 35: long-lived SCIM bearer tokens (`idp scim tokens`, oidc/scim/tokens.ts), the
 * "Secret Token" of Entra ID and the "HTTP Header" bearer of Okta, which directories keep for a
 * year rather than an access token's minutes. Only the SHA-256 of a token is stored, looked up by
 * that hash; a revoked token keeps its row (its name stays in the audit log's sense).
 */
import type { Migration } from "./migration.ts";

function schema(int: string, strict: string): string {
  return `
CREATE TABLE scim_tokens (
  name TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  created_at ${int} NOT NULL,
  expires_at ${int} NOT NULL,
  revoked_at ${int}
)${strict};
`;
}

export const scim_tokens: Migration = {
  version: 35,
  name: "scim_tokens",
  sqlite: schema("INTEGER", " STRICT"),
  postgres: schema("BIGINT", ""),
};
