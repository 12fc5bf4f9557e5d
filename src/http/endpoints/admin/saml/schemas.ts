/**
 * The admin API's representations of SAML 2.0 service providers (zod), their OpenAPI components,
 * and the view every answer gives: the registration with our metadata URL, never the NameID salt.
 * The rules (metadata, NameID formats, attributes, groups, signing) are oidc/admin/saml.ts's, the
 * same `idp saml` applies; the members mirror its options.
 */
import { z } from "zod";
import { SAML_SIGN_MODES, fetch_sp_metadata, service_provider_view } from "../../../../oidc/admin/saml.ts";
import { not_found } from "../../../../oidc/admin/errors.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { NAMEID_FORMAT_NAMES } from "../../../../oidc/saml/names.ts";
import type { SpMetadata } from "../../../../oidc/saml/sp_metadata.ts";
import { MAX_METADATA_BYTES } from "../../../../oidc/saml/xml.ts";
import type { SamlServiceProviderRow } from "../../../../store/types.ts";
import { ADMIN_API } from "../common.ts";

export const SAML_API = `${ADMIN_API}/saml/service-providers`;

const time = z.number().int().describe("Unix seconds");

export const SamlServiceProviderSchema = z
  .object({
    entity_id: z.string(),
    name: z.string(),
    idp_metadata_url: z.string().describe("our metadata: give it to the service provider"),
    assertion_consumer_services: z.array(z.string()),
    authn_requests_signed: z.boolean(),
    nameid_format: z.enum(NAMEID_FORMAT_NAMES as unknown as [string, ...string[]]),
    attributes: z.record(z.string(), z.string()).describe("extra attributes: SAML attribute name → user claim"),
    allowed_groups: z.array(z.string()).describe("only their members may sign in; empty: everyone"),
    idp_initiated: z.boolean(),
    sign: z.enum(SAML_SIGN_MODES as unknown as [string, ...string[]]),
    encrypt: z.boolean().describe("the signed Assertion is sent encrypted (EncryptedAssertion) to the encryption certificate of its metadata"),
    metadata_url: z.string().nullable().describe("where the metadata was fetched from; null: sent as XML"),
    created_at: time,
    updated_at: time,
  })
  .meta({ id: "SamlServiceProvider" });

const SETTINGS = {
  name: z.string().min(1).max(100).optional().describe("shown to users and in the audit log (default: the entityID)"),
  nameid_format: z
    .string()
    .max(32)
    .optional()
    .describe(`one of ${NAMEID_FORMAT_NAMES.join(", ")} (default persistent)`),
  attributes: z.record(z.string().min(1).max(256), z.string().min(1).max(256)).optional().describe("replaces the extra attributes: SAML attribute name → user claim"),
  allowed_groups: z.array(z.string().min(1).max(256)).max(100).optional().describe("replaces the allowed groups (each must exist); empty: everyone"),
  idp_initiated: z.boolean().optional().describe("allow sign-ins started here (unsolicited responses)"),
  sign: z
    .string()
    .max(16)
    .optional()
    .describe(`what is signed: ${SAML_SIGN_MODES.join(", ")} (default assertion)`),
  encrypt: z.boolean().optional().describe("encrypt the Assertion (AES-256-GCM, RSA-OAEP); refused when the metadata has no RSA encryption certificate"),
};

const METADATA = {
  metadata_xml: z.string().min(1).max(MAX_METADATA_BYTES).optional().describe("the service provider's SAML metadata document"),
  metadata_url: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional()
    .describe("or its URL, fetched through the outbound fence (IDP_OUTBOUND_*)"),
};

export const SamlServiceProviderCreateSchema = z
  .strictObject({ ...METADATA, ...SETTINGS })
  .refine((body) => (body.metadata_xml === undefined) !== (body.metadata_url === undefined), { message: "give metadata_xml or metadata_url (one of them)", path: ["metadata_xml"] })
  .meta({ id: "SamlServiceProviderCreate" });

export const SamlServiceProviderPatchSchema = z
  .strictObject({ ...METADATA, ...SETTINGS })
  .refine((body) => body.metadata_xml === undefined || body.metadata_url === undefined, { message: "give metadata_xml or metadata_url, not both", path: ["metadata_xml"] })
  .meta({ id: "SamlServiceProviderPatch" });

export type SamlServiceProviderView = z.infer<typeof SamlServiceProviderSchema>;

/** What the API answers of a service provider (the same fields `idp saml show --json` prints). */
export function saml_sp_view(idp: Pick<Provider, "config">, row: SamlServiceProviderRow, metadata?: SpMetadata): SamlServiceProviderView {
  return service_provider_view(idp, row, metadata);
}

export async function saml_sp_of(idp: Provider, entity_id: string): Promise<SamlServiceProviderRow> {
  const row = await idp.store.get_saml_service_provider(entity_id);
  if (row === null) throw not_found("service provider", entity_id);
  return row;
}

/** The metadata a request gives: the XML sent, or the document its URL answers (through the outbound fence, as `idp saml --metadata-url`); null: neither. */
export async function metadata_of(
  idp: Provider,
  body: { metadata_xml?: string | undefined; metadata_url?: string | undefined },
): Promise<{ metadata_xml: string; metadata_url: string | null } | null> {
  if (body.metadata_xml !== undefined) return { metadata_xml: body.metadata_xml, metadata_url: null };
  if (body.metadata_url !== undefined) return { metadata_xml: await fetch_sp_metadata(idp, body.metadata_url), metadata_url: body.metadata_url };
  return null;
}
