/**
 * Administering SAML 2.0 service providers: the rules `idp saml` (src/cli/saml.ts) applies. A
 * service provider is its metadata (saml/sp_metadata.ts: entityID, assertion consumer services,
 * signing keys) and the operator's choices: its name, the NameID format it gets, extra
 * attributes, the groups allowed to use it, whether it may receive unsolicited responses, and
 * which of the Response and the Assertion is signed, and whether the Assertion is encrypted.
 */
import { random_token } from "../crypto/secrets.ts";
import { OutboundError, outbound_fetch, type OutboundContext } from "../outbound/fetch.ts";
import { extra_attribute_problem } from "../saml/attributes.ts";
import { NAMEID_FORMAT_NAMES } from "../saml/names.ts";
import { MAX_METADATA_BYTES } from "../saml/xml.ts";
import { SpMetadataError, parse_sp_metadata, stored_sp_metadata, type SpMetadata } from "../saml/sp_metadata.ts";
import { idp_entity_id } from "../saml/metadata.ts";
import type { Config } from "../../config/schema.ts";
import { group_name_problem } from "../../store/group_names.ts";
import { StoreConflictError, type SamlNameIdFormat, type SamlServiceProviderPatch, type SamlServiceProviderRow, type SamlSignMode, type Store } from "../../store/types.ts";
import { AdminError, invalid_field as invalid, not_found } from "./errors.ts";

export const SAML_SIGN_MODES: readonly SamlSignMode[] = ["assertion", "response", "both"];

/** The operator's choices; what is not given keeps its default (add) or its value (update). */
export type SamlSettings = {
  name?: string | undefined;
  nameid_format?: string | undefined;
  /** Extra attributes: SAML attribute name → user claim (attributes.ts). Replaces the stored map on update. */
  attributes?: Readonly<Record<string, string>> | undefined;
  /** Replaces the stored list on update; empty: everyone. */
  allowed_groups?: readonly string[] | undefined;
  idp_initiated?: boolean | undefined;
  sign?: string | undefined;
  /** Encrypt the Assertion to the key of its metadata (saml/encrypt.ts). */
  encrypt?: boolean | undefined;
};

export type SamlMetadataInput = { metadata_xml: string; metadata_url?: string | null | undefined };

const NAME = /^[^\x00-\x1f\x7f]{1,100}$/u;
const MAX_ATTRIBUTES = 50;
const MAX_GROUPS = 100;

function checked_metadata(xml: string): SpMetadata {
  try {
    return parse_sp_metadata(xml);
  } catch (error) {
    if (error instanceof SpMetadataError) throw invalid("metadata", error.message);
    throw error;
  }
}

/** The settings as stored: checked, group names as the groups spell them. */
async function checked_settings(store: Store, settings: SamlSettings, metadata: SpMetadata, current: SamlServiceProviderRow | null): Promise<SamlServiceProviderPatch> {
  const out: SamlServiceProviderPatch = {};
  if (settings.name !== undefined) {
    const name = settings.name.trim();
    if (!NAME.test(name)) throw invalid("name", "must be 1 to 100 characters without control characters");
    out.name = name;
  }
  if (settings.nameid_format !== undefined) {
    if (!(NAMEID_FORMAT_NAMES as readonly string[]).includes(settings.nameid_format))
      throw invalid("nameid_format", `"${settings.nameid_format}" is not one of ${NAMEID_FORMAT_NAMES.join(", ")}`);
    out.nameid_format = settings.nameid_format as SamlNameIdFormat;
  }
  if (settings.attributes !== undefined) {
    const entries = Object.entries(settings.attributes);
    if (entries.length > MAX_ATTRIBUTES) throw invalid("attributes", `at most ${MAX_ATTRIBUTES} extra attributes`);
    for (const [name, claim] of entries) {
      const problem = extra_attribute_problem(name, claim);
      if (problem !== null) throw invalid("attributes", problem);
    }
    out.attributes = Object.fromEntries(entries);
  }
  if (settings.allowed_groups !== undefined) {
    if (settings.allowed_groups.length > MAX_GROUPS) throw invalid("allowed_groups", `at most ${MAX_GROUPS} groups`);
    const spelled: string[] = [];
    for (const name of settings.allowed_groups) {
      const problem = group_name_problem(name);
      if (problem !== null) throw invalid("allowed_groups", problem);
      // A typo would lock everyone out without a word: the group must exist.
      const group = await store.get_group_by_name(name);
      if (group === null) throw invalid("allowed_groups", `no group "${name}" (create it first)`);
      if (!spelled.includes(group.name)) spelled.push(group.name);
    }
    out.allowed_groups = spelled;
  }
  if (settings.idp_initiated !== undefined) out.idp_initiated = settings.idp_initiated;
  if (settings.sign !== undefined) {
    if (!(SAML_SIGN_MODES as readonly string[]).includes(settings.sign)) throw invalid("sign", `"${settings.sign}" is not one of ${SAML_SIGN_MODES.join(", ")}`);
    out.sign = settings.sign as SamlSignMode;
  }
  // SAML Metadata §2.4.4: a service provider that wants signed assertions gets them.
  const sign = out.sign ?? current?.sign ?? "assertion";
  if (metadata.want_assertions_signed && sign === "response") {
    throw invalid("sign", "the service provider's metadata asks for signed assertions (WantAssertionsSigned): use assertion or both");
  }
  if (settings.encrypt !== undefined) out.encrypt = settings.encrypt;
  // SAML Core §2.3.4: an EncryptedAssertion needs the service provider's RSA key; new metadata without one is refused while encrypt is on.
  if ((out.encrypt ?? current?.encrypt ?? false) && metadata.encryption_keys.length === 0) {
    throw invalid(
      "encrypt",
      'the service provider\'s metadata has no RSA encryption certificate (md:KeyDescriptor use="encryption" or without use): assertions cannot be encrypted to it',
    );
  }
  return out;
}

/** Registers a service provider from its metadata; the entityID must be new. */
export async function create_saml_service_provider(
  store: Store,
  input: SamlMetadataInput & SamlSettings,
  now: number,
): Promise<{ row: SamlServiceProviderRow; metadata: SpMetadata }> {
  const metadata = checked_metadata(input.metadata_xml);
  const settings = await checked_settings(store, input, metadata, null);
  const taken = () =>
    new AdminError("conflict", `service provider ${metadata.entity_id} is already registered (update it instead)`, [{ field: "metadata", message: "entityID is taken" }]);
  if ((await store.get_saml_service_provider(metadata.entity_id)) !== null) throw taken();
  try {
    const row = await store.create_saml_service_provider({
      ...settings,
      entity_id: metadata.entity_id,
      name: settings.name ?? metadata.entity_id,
      metadata_xml: input.metadata_xml,
      metadata_url: input.metadata_url ?? null,
      nameid_salt: random_token(32),
      created_at: now,
    });
    return { row, metadata };
  } catch (error) {
    if (error instanceof StoreConflictError) throw taken();
    throw error;
  }
}

/** Changes what is given: new metadata (of the same entityID) and settings. */
export async function update_saml_service_provider(
  store: Store,
  entity_id: string,
  input: Partial<SamlMetadataInput> & SamlSettings,
  now: number,
): Promise<{ row: SamlServiceProviderRow; metadata: SpMetadata }> {
  const current = await store.get_saml_service_provider(entity_id);
  if (current === null) throw not_found("service provider", entity_id);
  const metadata = checked_metadata(input.metadata_xml ?? current.metadata_xml);
  if (metadata.entity_id !== entity_id) throw invalid("metadata", `the metadata describes ${metadata.entity_id}, not ${entity_id}`);
  const patch: SamlServiceProviderPatch = { ...(await checked_settings(store, input, metadata, current)), updated_at: now };
  if (input.metadata_xml !== undefined) {
    patch.metadata_xml = input.metadata_xml;
    patch.metadata_url = input.metadata_url ?? null;
  }
  const row = await store.update_saml_service_provider(entity_id, patch);
  if (row === null) throw not_found("service provider", entity_id);
  return { row, metadata };
}

/**
 * Fetches a service provider's metadata from its URL, through the outbound fence (SSRF: the URL
 * is the operator's, but the host it names answers from inside the provider's network).
 */
export async function fetch_sp_metadata(context: OutboundContext, url: string): Promise<string> {
  try {
    const response = await outbound_fetch(context, url, {
      purpose: "saml_metadata",
      headers: { accept: "application/samlmetadata+xml, application/xml, text/xml" },
      max_bytes: MAX_METADATA_BYTES,
    });
    return new TextDecoder("utf-8", { fatal: true }).decode(response.body);
  } catch (error) {
    if (error instanceof OutboundError) throw invalid("metadata_url", `${url} could not be fetched: ${error.reason}`);
    if (error instanceof TypeError) throw invalid("metadata_url", `${url} did not answer UTF-8 text`);
    throw error;
  }
}

/** What `idp saml show --json` prints and the admin API answers of a service provider: the registration with our metadata URL. */
export function service_provider_view(idp: { config: Config }, row: SamlServiceProviderRow, metadata: SpMetadata = stored_sp_metadata(row.metadata_xml)) {
  return {
    entity_id: row.entity_id,
    name: row.name,
    idp_metadata_url: idp_entity_id(idp),
    assertion_consumer_services: metadata.acs.map((acs) => acs.location),
    authn_requests_signed: metadata.authn_requests_signed,
    nameid_format: row.nameid_format,
    attributes: row.attributes,
    allowed_groups: row.allowed_groups,
    idp_initiated: row.idp_initiated,
    sign: row.sign,
    encrypt: row.encrypt,
    metadata_url: row.metadata_url,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
