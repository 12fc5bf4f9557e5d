/**
 * Rows of `saml_service_providers`: the column spec (codec.ts encodes and decodes by it) and the
 * builder that completes a new row, shared by both adapters so they store the same defaults.
 */
import type { TableSpec } from "../codec.ts";
import { now_seconds } from "../clock.ts";
import type { NewSamlServiceProvider, SamlParticipantRow, SamlServiceProviderRow } from "../types.ts";

/** The columns of `saml_service_providers`. */
export const saml_service_provider_spec: TableSpec<SamlServiceProviderRow> = {
  entity_id: "text",
  name: "text",
  metadata_xml: "text",
  metadata_url: "text",
  nameid_format: "text",
  attributes: "json",
  allowed_groups: "json",
  idp_initiated: "bool",
  sign: "text",
  encrypt: "bool",
  nameid_salt: "text",
  created_at: "int",
  updated_at: "int",
};

/** The complete row of a new service provider: persistent NameIDs, signed assertions, no extra attributes, open to everyone, unless given. */
export function saml_service_provider_row(input: NewSamlServiceProvider): SamlServiceProviderRow {
  const created = input.created_at ?? now_seconds();
  return {
    entity_id: input.entity_id,
    name: input.name,
    metadata_xml: input.metadata_xml,
    metadata_url: input.metadata_url ?? null,
    nameid_format: input.nameid_format ?? "persistent",
    attributes: input.attributes ?? {},
    allowed_groups: input.allowed_groups ?? [],
    idp_initiated: input.idp_initiated ?? false,
    sign: input.sign ?? "assertion",
    encrypt: input.encrypt ?? false,
    nameid_salt: input.nameid_salt,
    created_at: created,
    updated_at: input.updated_at ?? created,
  };
}

/** The columns of `saml_session_participants` read back (name_id_value is name_id.value, for the lookup). */
export const saml_participant_spec: TableSpec<SamlParticipantRow> = {
  session_id_hash: "text",
  entity_id: "text",
  name_id: "json",
  session_index: "text",
  created_at: "int",
};
