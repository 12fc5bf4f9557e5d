/**
 * A service provider's metadata (SAML Metadata §2.3.2 EntityDescriptor, §2.4.4 SPSSODescriptor)
 * as this provider uses it: its entityID, where assertions may be sent (the HTTP-POST assertion
 * consumer services, §2.4.4.1), the keys its requests are signed with (§2.4.1.1 KeyDescriptor),
 * and whether it signs its AuthnRequests (AuthnRequestsSigned). Read from the document the
 * operator registered, never from a request: an ACS URL a request names must be one of these.
 */
import { createHash, X509Certificate } from "node:crypto";
import { redirect_uri_problem } from "../clients/redirect_uris.ts";
import { BINDINGS, NS } from "./names.ts";
import { MAX_METADATA_BYTES, XmlRejected, attribute, boolean_attribute, children, is_element, optional_child, parse_xml, text_of } from "./xml.ts";
import type { Element } from "@xmldom/xmldom";

/** A single logout service (SAML Metadata §2.2.2): where LogoutRequests go, and LogoutResponses (ResponseLocation, else Location). */
export type SingleLogoutService = { binding: "redirect" | "post"; location: string; response_location: string };

/** An RSA key assertions may be encrypted to: base64 DER of its certificate, and the algorithms its KeyDescriptor names (SAML Metadata §2.4.1.1 EncryptionMethod). */
export type EncryptionKey = { certificate: string; methods: string[] };

/** One HTTP-POST assertion consumer service; `is_default` null when the attribute is absent. */
export type AssertionConsumerService = { location: string; index: number | null; is_default: boolean | null };

export type SpMetadata = {
  entity_id: string;
  /** SAML Metadata §2.4.4: the SP signs its AuthnRequests; an unsigned one is then refused. */
  authn_requests_signed: boolean;
  /** SAML Metadata §2.4.4: it wants the Assertion signed (we sign it unless told `response` only). */
  want_assertions_signed: boolean;
  /** The HTTP-POST assertion consumer services, in document order. */
  acs: AssertionConsumerService[];
  /** base64 DER of the certificates whose keys sign its requests (use="signing" or no use). */
  signing_certificates: string[];
  /** Its RSA encryption keys (use="encryption" or no use), in document order; other keys are left out. */
  encryption_keys: EncryptionKey[];
  /** The NameID formats it says it supports (informational). */
  nameid_formats: string[];
  /** Its single logout services over HTTP-Redirect and HTTP-POST, in document order (SOAP is not offered). */
  slo: SingleLogoutService[];
};

/** The longest entityID accepted (SAML Core §8.3.6 caps it at 1024 characters). */
const MAX_ENTITY_ID = 1024;

/** Why this metadata cannot be registered; thrown by parse_sp_metadata. */
export class SpMetadataError extends Error {
  override name = "SpMetadataError";
}

function entity_descriptor(root: Element): Element {
  if (is_element(root, NS.metadata, "EntityDescriptor")) return root;
  if (is_element(root, NS.metadata, "EntitiesDescriptor")) {
    const entities = children(root, NS.metadata, "EntityDescriptor");
    if (entities.length !== 1) throw new SpMetadataError(`the metadata describes ${entities.length} entities; give the document of one service provider`);
    return entities[0]!;
  }
  throw new SpMetadataError("the document is not SAML metadata (no md:EntityDescriptor)");
}

/** The certificates of the KeyDescriptors for signing (SAML Metadata §2.4.1.1: no `use` means both uses). */
function signing_certificates(descriptor: Element): string[] {
  const out: string[] = [];
  for (const key of children(descriptor, NS.metadata, "KeyDescriptor")) {
    const use = attribute(key, "use");
    if (use !== null && use !== "signing") continue;
    const info = optional_child(key, NS.dsig, "KeyInfo");
    if (info === null) continue;
    for (const data of children(info, NS.dsig, "X509Data")) {
      for (const element of children(data, NS.dsig, "X509Certificate")) {
        const base64 = text_of(element).replace(/\s+/g, "");
        let cert: X509Certificate;
        try {
          cert = new X509Certificate(Buffer.from(base64, "base64"));
        } catch {
          throw new SpMetadataError("a signing certificate in the metadata is not a valid X.509 certificate");
        }
        // Requests are verified with RSA-SHA256 and stronger (names.ts ACCEPTED_SIGNATURE_ALGORITHMS).
        if (cert.publicKey.asymmetricKeyType !== "rsa")
          throw new SpMetadataError(`a signing certificate holds a ${cert.publicKey.asymmetricKeyType} key; only RSA keys are supported`);
        if (!out.includes(base64)) out.push(base64);
      }
    }
  }
  return out;
}

/**
 * The RSA keys of the KeyDescriptors for encryption (SAML Metadata §2.4.1.1: no `use` means both
 * uses). A key that is not RSA, or a certificate that cannot be read, is passed over: an SP that
 * has no usable one cannot have its assertions encrypted (oidc/admin/saml.ts says so).
 */
function encryption_keys(descriptor: Element): EncryptionKey[] {
  const out: EncryptionKey[] = [];
  for (const key of children(descriptor, NS.metadata, "KeyDescriptor")) {
    const use = attribute(key, "use");
    if (use !== null && use !== "encryption") continue;
    const info = optional_child(key, NS.dsig, "KeyInfo");
    if (info === null) continue;
    const methods = children(key, NS.metadata, "EncryptionMethod")
      .map((method) => attribute(method, "Algorithm") ?? "")
      .filter((algorithm) => algorithm !== "");
    for (const data of children(info, NS.dsig, "X509Data")) {
      for (const element of children(data, NS.dsig, "X509Certificate")) {
        const base64 = text_of(element).replace(/\s+/g, "");
        try {
          if (new X509Certificate(Buffer.from(base64, "base64")).publicKey.asymmetricKeyType !== "rsa") continue;
        } catch {
          continue;
        }
        if (!out.some((known) => known.certificate === base64)) out.push({ certificate: base64, methods });
      }
    }
  }
  return out;
}

function consumer_services(descriptor: Element): AssertionConsumerService[] {
  const out: AssertionConsumerService[] = [];
  for (const element of children(descriptor, NS.metadata, "AssertionConsumerService")) {
    // The Response goes back by HTTP-POST only (SAML Profiles §4.1.2: the artifact binding is not offered).
    if (attribute(element, "Binding") !== BINDINGS.post) continue;
    const location = attribute(element, "Location") ?? "";
    const problem = redirect_uri_problem(location);
    if (problem !== null) throw new SpMetadataError(`the assertion consumer service "${location.slice(0, 200)}" ${problem}`);
    const raw_index = attribute(element, "index");
    const index = raw_index !== null && /^\d{1,5}$/.test(raw_index.trim()) ? Number(raw_index.trim()) : null;
    if (raw_index !== null && index === null) throw new SpMetadataError(`the assertion consumer service index "${raw_index.slice(0, 20)}" is not a number`);
    out.push({ location, index, is_default: attribute(element, "isDefault") === null ? null : boolean_attribute(element, "isDefault", false) });
  }
  return out;
}

function logout_services(descriptor: Element): SingleLogoutService[] {
  const out: SingleLogoutService[] = [];
  for (const element of children(descriptor, NS.metadata, "SingleLogoutService")) {
    const raw = attribute(element, "Binding");
    const binding = raw === BINDINGS.redirect ? "redirect" : raw === BINDINGS.post ? "post" : null;
    if (binding === null) continue;
    const location = attribute(element, "Location") ?? "";
    const response_location = attribute(element, "ResponseLocation") ?? location;
    for (const url of new Set([location, response_location])) {
      const problem = redirect_uri_problem(url);
      if (problem !== null) throw new SpMetadataError(`the single logout service "${url.slice(0, 200)}" ${problem}`);
    }
    out.push({ binding, location, response_location });
  }
  return out;
}

/** The single logout service a message goes to: HTTP-Redirect first (no script needed), else HTTP-POST; null when it has none. */
export function logout_service(metadata: SpMetadata): SingleLogoutService | null {
  return metadata.slo.find((slo) => slo.binding === "redirect") ?? metadata.slo.find((slo) => slo.binding === "post") ?? null;
}

/** Reads a service provider's metadata; SpMetadataError (or XmlRejected) says what is wrong. */
export function parse_sp_metadata(xml: string): SpMetadata {
  let doc: ReturnType<typeof parse_xml>;
  try {
    doc = parse_xml(xml, MAX_METADATA_BYTES);
  } catch (error) {
    if (error instanceof XmlRejected) throw new SpMetadataError(`the metadata cannot be read: ${error.reason}`);
    throw error;
  }
  const entity = entity_descriptor(doc.documentElement!);
  const entity_id = (attribute(entity, "entityID") ?? "").trim();
  if (entity_id === "" || entity_id.length > MAX_ENTITY_ID) throw new SpMetadataError(`the entityID must be 1 to ${MAX_ENTITY_ID} characters`);
  if (/[\s<>"]/.test(entity_id)) throw new SpMetadataError("the entityID must be a URI (no spaces, quotes or angle brackets)");
  const descriptors = children(entity, NS.metadata, "SPSSODescriptor").filter((d) => (attribute(d, "protocolSupportEnumeration") ?? "").split(/\s+/).includes(NS.protocol));
  if (descriptors.length !== 1) throw new SpMetadataError("the metadata must hold one md:SPSSODescriptor for SAML 2.0 (protocolSupportEnumeration)");
  const descriptor = descriptors[0]!;
  let metadata: SpMetadata;
  try {
    metadata = {
      entity_id,
      authn_requests_signed: boolean_attribute(descriptor, "AuthnRequestsSigned", false),
      want_assertions_signed: boolean_attribute(descriptor, "WantAssertionsSigned", false),
      acs: consumer_services(descriptor),
      signing_certificates: signing_certificates(descriptor),
      encryption_keys: encryption_keys(descriptor),
      nameid_formats: children(descriptor, NS.metadata, "NameIDFormat").map(text_of),
      slo: logout_services(descriptor),
    };
  } catch (error) {
    if (error instanceof XmlRejected) throw new SpMetadataError(`the metadata cannot be read: ${error.reason}`);
    throw error;
  }
  if (metadata.acs.length === 0) throw new SpMetadataError("the metadata has no AssertionConsumerService for the HTTP-POST binding");
  if (metadata.authn_requests_signed && metadata.signing_certificates.length === 0) {
    throw new SpMetadataError("AuthnRequestsSigned is true but the metadata has no signing certificate");
  }
  return metadata;
}

const parsed = new Map<string, SpMetadata>();

/** parse_sp_metadata of a stored document, kept by its hash: a request does not parse XML it already read. */
export function stored_sp_metadata(xml: string): SpMetadata {
  const key = createHash("sha256").update(xml, "utf8").digest("base64url");
  let value = parsed.get(key);
  if (value === undefined) {
    value = parse_sp_metadata(xml);
    if (parsed.size > 256) parsed.clear();
    parsed.set(key, value);
  }
  return value;
}

/**
 * The ACS a response goes to when the request names none (SAML Metadata §2.2.3): the first with
 * isDefault true, else the first without isDefault, else the first.
 */
export function default_acs(metadata: SpMetadata): AssertionConsumerService {
  return metadata.acs.find((acs) => acs.is_default === true) ?? metadata.acs.find((acs) => acs.is_default === null) ?? metadata.acs[0]!;
}
