/**
 * Version 32: which SAML service providers each browser session signed in to (SAML Profiles
 * §4.4.3.1: the identity provider "MUST" know the session participants to propagate a logout).
 *
 * - `saml_session_participants`: one row per session and service provider, written when an
 *   Assertion is issued (oidc/saml/sso.ts), with the NameID it carried (`name_id`, a JSON object:
 *   format, value, qualifiers — a transient one cannot be derived again) and its SessionIndex.
 *   The rows go with the session and with the service provider. Looked up by (entity_id,
 *   session_index) and (entity_id, name_id_value) when a service provider's LogoutRequest comes
 *   (oidc/saml/logout_request.ts): that request, a cross-site POST, carries no session cookie.
 */
import type { Migration } from "./migration.ts";

function schema(int: string, json: string, strict: string): string {
  return `
CREATE TABLE saml_session_participants (
  session_id_hash TEXT NOT NULL REFERENCES sessions(id_hash) ON DELETE CASCADE,
  entity_id TEXT NOT NULL REFERENCES saml_service_providers(entity_id) ON DELETE CASCADE,
  name_id ${json} NOT NULL,
  name_id_value TEXT NOT NULL,
  session_index TEXT NOT NULL,
  created_at ${int} NOT NULL,
  PRIMARY KEY (session_id_hash, entity_id)
)${strict};
CREATE INDEX saml_session_participants_index ON saml_session_participants (entity_id, session_index);
CREATE INDEX saml_session_participants_name ON saml_session_participants (entity_id, name_id_value);
`;
}

export const saml_session_participants: Migration = {
  version: 32,
  name: "saml session participants",
  sqlite: schema("INTEGER", "TEXT", " STRICT"),
  postgres: schema("BIGINT", "JSONB", ""),
};
