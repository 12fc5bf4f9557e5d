/**
 * Version 34: encrypted assertions for SAML service providers (oidc/saml/encrypt.ts).
 *
 * - `saml_service_providers.encrypt`: the signed Assertion goes to the service provider as an
 *   EncryptedAssertion (SAML Core §2.3.4) under the encryption key of its metadata. Off for the
 *   service providers registered before.
 */
import type { Migration } from "./migration.ts";

export const saml_encrypt: Migration = {
  version: 34,
  name: "saml encrypted assertions",
  sqlite: "ALTER TABLE saml_service_providers ADD COLUMN encrypt INTEGER NOT NULL DEFAULT 0;",
  postgres: "ALTER TABLE saml_service_providers ADD COLUMN encrypt BOOLEAN NOT NULL DEFAULT false;",
};
