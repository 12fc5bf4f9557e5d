/** Store types: SAML 2.0 service providers (oidc/saml/). The rules every adapter keeps are in ../types.ts. */

import type { UnixSeconds } from "./common.ts";

/** Which of the Response and the Assertion we sign for a service provider (SAML Core §5). */
export type SamlSignMode = "assertion" | "response" | "both";
/** The NameID format a service provider gets (oidc/saml/names.ts NAMEID_FORMATS). */
export type SamlNameIdFormat = "persistent" | "email" | "transient" | "unspecified";

export type SamlServiceProviderRow = {
  /** SAML Metadata §2.3.2: the service provider's entityID, unique. */
  entity_id: string;
  /** Shown on the sign-in pages and in the audit log. */
  name: string;
  /** The metadata document as registered (its endpoints, keys and wishes are read from it). */
  metadata_xml: string;
  /** Where the metadata was fetched from, when it came from a URL; null: a file. */
  metadata_url: string | null;
  nameid_format: SamlNameIdFormat;
  /** Extra attributes: SAML attribute name → the user claim it carries. */
  attributes: Record<string, string>;
  /** Only members of one of these groups may sign in; empty: everyone. */
  allowed_groups: string[];
  /** Unsolicited (IdP-initiated) responses allowed (SAML Profiles §4.1.5). */
  idp_initiated: boolean;
  sign: SamlSignMode;
  /** A random salt, this service provider's own: its persistent NameIDs are derived with it (oidc/saml/). */
  nameid_salt: string;
  created_at: UnixSeconds;
  updated_at: UnixSeconds;
};

export type NewSamlServiceProvider = Pick<SamlServiceProviderRow, "entity_id" | "name" | "metadata_xml" | "nameid_salt"> &
  Partial<Omit<SamlServiceProviderRow, "entity_id" | "name" | "metadata_xml" | "nameid_salt">>;

/** What an update may change: not the entityID, the salt (NameIDs must not change) or the creation time. */
export type SamlServiceProviderPatch = Partial<Omit<SamlServiceProviderRow, "entity_id" | "nameid_salt" | "created_at">>;

export interface SamlStore {
  /** Raises StoreConflictError when the entityID is registered already. */
  create_saml_service_provider(provider: NewSamlServiceProvider): Promise<SamlServiceProviderRow>;
  get_saml_service_provider(entity_id: string): Promise<SamlServiceProviderRow | null>;
  /** Ordered by entityID. */
  list_saml_service_providers(): Promise<SamlServiceProviderRow[]>;
  /** Changes the fields given (updated_at: now unless given); null when unknown. */
  update_saml_service_provider(entity_id: string, patch: SamlServiceProviderPatch): Promise<SamlServiceProviderRow | null>;
  /** False when unknown. */
  delete_saml_service_provider(entity_id: string): Promise<boolean>;
}
