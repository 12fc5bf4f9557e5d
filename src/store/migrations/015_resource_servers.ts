/**
 * Version 15: resource servers (RFC 8707 resource indicators, RFC 9068 JWT access tokens) and
 * token exchange (RFC 8693).
 *
 * - `resource_servers`: the APIs an operator registered (`idp resources add`). `uri` is the
 *   resource indicator, an absolute URI without fragment (RFC 8707 §2); `scopes` the scope values
 *   it accepts (a JSON array); `access_token_format` `jwt` (RFC 9068) or `opaque` (the default);
 *   `access_token_ttl` overrides IDP_ACCESS_TOKEN_TTL for its tokens (NULL: the setting).
 * - `codes.resources`, `tokens.resources`: the resources an authorization was granted for (a JSON
 *   array; NULL: none asked). A refresh token keeps the whole set so a later refresh can narrow
 *   to any one of them again (RFC 8707 §2.2); an access token holds the one it is audienced to.
 * - `tokens.act`: the actor of a delegated token (RFC 8693 §4.1), returned by introspection.
 */
import type { Migration } from "./migration.ts";

function schema(int: string, json: string, strict: string): string {
  return `
CREATE TABLE resource_servers (
  uri TEXT PRIMARY KEY,
  scopes ${json} NOT NULL,
  access_token_format TEXT NOT NULL DEFAULT 'opaque' CHECK (access_token_format IN ('jwt', 'opaque')),
  access_token_ttl ${int},
  created_at ${int} NOT NULL,
  updated_at ${int} NOT NULL
)${strict};

ALTER TABLE codes ADD COLUMN resources ${json};
ALTER TABLE tokens ADD COLUMN resources ${json};
ALTER TABLE tokens ADD COLUMN act ${json};
`;
}

export const resource_servers: Migration = {
  version: 15,
  name: "resource servers and token exchange",
  sqlite: schema("INTEGER", "TEXT", " STRICT"),
  postgres: schema("BIGINT", "JSONB", ""),
};
