/**
 * Version 24: SAML 2.0 service providers (oidc/saml/, `idp saml add`).
 *
 * - `saml_service_providers`: one row per service provider, keyed by its entityID (SAML Metadata
 *   §2.3.2). `metadata_xml` is its metadata as registered (the assertion consumer services, keys
 *   and AuthnRequestsSigned are read from it), `metadata_url` where it was fetched (NULL: a
 *   file). The operator's choices: `nameid_format`, `attributes` (a JSON object: attribute name →
 *   claim), `allowed_groups` (a JSON array; empty: everyone), `idp_initiated`, `sign` (which of
 *   the Response and the Assertion is signed). `nameid_salt` is random per service provider:
 *   its persistent NameIDs are derived with it, so they stay the same for it and differ between
 *   service providers.
 */
import type { Migration } from "./migration.ts";

function schema(int: string, bool: string, json: string, no: string, strict: string): string {
  return `
CREATE TABLE saml_service_providers (
  entity_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  metadata_xml TEXT NOT NULL,
  metadata_url TEXT,
  nameid_format TEXT NOT NULL DEFAULT 'persistent' CHECK (nameid_format IN ('persistent', 'email', 'transient', 'unspecified')),
  attributes ${json} NOT NULL,
  allowed_groups ${json} NOT NULL,
  idp_initiated ${bool} NOT NULL DEFAULT ${no},
  sign TEXT NOT NULL DEFAULT 'assertion' CHECK (sign IN ('assertion', 'response', 'both')),
  nameid_salt TEXT NOT NULL,
  created_at ${int} NOT NULL,
  updated_at ${int} NOT NULL
)${strict};
`;
}

export const saml_service_providers: Migration = {
  version: 24,
  name: "saml service providers",
  sqlite: schema("INTEGER", "INTEGER", "TEXT", "0", " STRICT"),
  postgres: schema("BIGINT", "BOOLEAN", "JSONB", "false", ""),
};
