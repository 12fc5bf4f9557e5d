/**
 * Our SAML 2.0 metadata (SAML Metadata §2.3.2 EntityDescriptor, §2.4.3 IDPSSODescriptor), served
 * at `<issuer>/saml/metadata`: the entityID is that URL (SAML Metadata §4.1, the "well-known
 * location" convention), the signing certificates (keys.ts), the single sign-on and single logout services for the
 * HTTP-Redirect and HTTP-POST bindings, and the NameID formats a service provider may be given.
 * It changes only when the keys do, so it is rebuilt when the signing kids change.
 */
import type { Provider } from "../provider.ts";
import { published_certificates } from "./keys.ts";
import { BINDINGS, NAMEID_FORMATS, NS } from "./names.ts";
import { escape_xml } from "./xml.ts";

/** The SAML endpoints' paths below the issuer (src/http/endpoints/saml/). */
export const SAML_PATHS = {
  metadata: "/saml/metadata",
  sso: "/saml/sso",
  /** The single logout service (SAML Profiles §4.4), for both bindings. */
  slo: "/saml/slo",
  /** IdP-initiated sign-in to a service provider that allows it (sso.ts `start_idp_initiated`). */
  start: "/saml/start",
  /** Where a pending request goes on in the browser (pending.ts). */
  resume: "/saml/resume",
} as const;

/** Our entityID (SAML Core §8.3.6): the metadata's URL. */
export function idp_entity_id(idp: Pick<Provider, "config">): string {
  return `${idp.config.issuer}${SAML_PATHS.metadata}`;
}

export function sso_url(idp: Provider): string {
  return `${idp.config.issuer}${SAML_PATHS.sso}`;
}

export function slo_url(idp: Provider): string {
  return `${idp.config.issuer}${SAML_PATHS.slo}`;
}

let cached: { key: string; xml: string } | null = null;

/** The metadata document, rebuilt when the certificates or the issuer change. */
export function idp_metadata(idp: Provider): string {
  const certificates = published_certificates(idp);
  const key = `${idp.config.issuer}|${certificates.map((c) => c.kid).join(",")}`;
  if (cached?.key === key) return cached.xml;
  const entity_id = escape_xml(idp_entity_id(idp));
  const sso = escape_xml(sso_url(idp));
  const slo = escape_xml(slo_url(idp));
  const key_descriptors = certificates
    .map(
      ({ kid, certificate }) =>
        `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:KeyName>${escape_xml(kid)}</ds:KeyName><ds:X509Data><ds:X509Certificate>${certificate}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
    )
    .join("");
  const formats = Object.values(NAMEID_FORMATS)
    .map((format) => `<md:NameIDFormat>${format}</md:NameIDFormat>`)
    .join("");
  const xml =
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<md:EntityDescriptor xmlns:md="${NS.metadata}" xmlns:ds="${NS.dsig}" entityID="${entity_id}">` +
    // SAML Metadata §2.4.3: WantAuthnRequestsSigned is the IdP's wish for every SP; ours is per
    // service provider (its own AuthnRequestsSigned, sp_metadata.ts), so false here.
    `<md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="${NS.protocol}">` +
    key_descriptors +
    // SAML Metadata §2.4.2: SingleLogoutService comes before NameIDFormat.
    `<md:SingleLogoutService Binding="${BINDINGS.redirect}" Location="${slo}"/>` +
    `<md:SingleLogoutService Binding="${BINDINGS.post}" Location="${slo}"/>` +
    formats +
    `<md:SingleSignOnService Binding="${BINDINGS.redirect}" Location="${sso}"/>` +
    `<md:SingleSignOnService Binding="${BINDINGS.post}" Location="${sso}"/>` +
    `</md:IDPSSODescriptor>` +
    `</md:EntityDescriptor>\n`;
  cached = { key, xml };
  return xml;
}
