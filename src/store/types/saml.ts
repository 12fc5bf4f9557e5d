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
  /** The signed Assertion is encrypted to the key of its metadata (SAML Core §2.3.4 EncryptedAssertion). */
  encrypt: boolean;
  /** A random salt, this service provider's own: its persistent NameIDs are derived with it (oidc/saml/). */
  nameid_salt: string;
  created_at: UnixSeconds;
  updated_at: UnixSeconds;
};

export type NewSamlServiceProvider = Pick<SamlServiceProviderRow, "entity_id" | "name" | "metadata_xml" | "nameid_salt"> &
  Partial<Omit<SamlServiceProviderRow, "entity_id" | "name" | "metadata_xml" | "nameid_salt">>;

/** What an update may change: not the entityID, the salt (NameIDs must not change) or the creation time. */
export type SamlServiceProviderPatch = Partial<Omit<SamlServiceProviderRow, "entity_id" | "nameid_salt" | "created_at">>;

/** The NameID given to a service provider (oidc/saml/subject.ts), kept for its logout. */
export type SamlNameIdValue = { format: string; value: string; name_qualifier: string | null; sp_name_qualifier: string | null };

/** A service provider a browser session signed in to (SAML Profiles §4.4: a session participant). */
export type SamlParticipantRow = {
  session_id_hash: string;
  entity_id: string;
  name_id: SamlNameIdValue;
  session_index: string;
  created_at: UnixSeconds;
};

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
  /**
   * Remembers that a session signed in to a service provider, with the NameID and SessionIndex
   * it was given (the latest replaces an earlier one: a transient NameID changes). Does nothing
   * when the session or the service provider is gone; the rows go with either.
   */
  add_saml_participant(participant: SamlParticipantRow): Promise<void>;
  /** The service providers a session signed in to, ordered by entityID. */
  list_saml_participants(session_id_hash: string): Promise<SamlParticipantRow[]>;
  /**
   * The sessions a service provider's LogoutRequest names (SAML Core §3.7.1): by its
   * SessionIndex when given, else every session that gave it this NameID value.
   */
  find_saml_participants(entity_id: string, name_id_value: string, session_index: string | null): Promise<SamlParticipantRow[]>;
}
