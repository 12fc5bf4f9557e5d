/**
 * The names SAML 2.0 gives things, written once: namespaces (SAML Core §1.2), bindings (SAML
 * Bindings §3), NameID formats (SAML Core §8.3), status codes (SAML Core §3.2.2.2) and the
 * algorithms of XML Signature this provider signs and accepts.
 */

export const NS = {
  protocol: "urn:oasis:names:tc:SAML:2.0:protocol",
  assertion: "urn:oasis:names:tc:SAML:2.0:assertion",
  metadata: "urn:oasis:names:tc:SAML:2.0:metadata",
  dsig: "http://www.w3.org/2000/09/xmldsig#",
  xsi: "http://www.w3.org/2001/XMLSchema-instance",
  xs: "http://www.w3.org/2001/XMLSchema",
} as const;

/** SAML Bindings §3.4 (HTTP-Redirect) and §3.5 (HTTP-POST). */
export const BINDINGS = {
  redirect: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect",
  post: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST",
} as const;

/** The NameID formats an operator may choose for a service provider (SAML Core §8.3). */
export const NAMEID_FORMATS = {
  persistent: "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent",
  email: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
  transient: "urn:oasis:names:tc:SAML:2.0:nameid-format:transient",
  unspecified: "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified",
} as const;
export type NameIdFormat = keyof typeof NAMEID_FORMATS;
export const NAMEID_FORMAT_NAMES = Object.keys(NAMEID_FORMATS) as NameIdFormat[];

/** SAML Core §3.2.2.2: the status codes this provider answers with. */
export const STATUS = {
  success: "urn:oasis:names:tc:SAML:2.0:status:Success",
  requester: "urn:oasis:names:tc:SAML:2.0:status:Requester",
  responder: "urn:oasis:names:tc:SAML:2.0:status:Responder",
  no_passive: "urn:oasis:names:tc:SAML:2.0:status:NoPassive",
  invalid_nameid_policy: "urn:oasis:names:tc:SAML:2.0:status:InvalidNameIDPolicy",
  request_denied: "urn:oasis:names:tc:SAML:2.0:status:RequestDenied",
} as const;

/** SAML Core §2.7.3.1: attribute name formats. */
export const ATTRNAME_FORMAT = {
  basic: "urn:oasis:names:tc:SAML:2.0:attrname-format:basic",
  uri: "urn:oasis:names:tc:SAML:2.0:attrname-format:uri",
} as const;

/** SAML Profiles §3.3: the bearer subject confirmation method of Web Browser SSO. */
export const BEARER = "urn:oasis:names:tc:SAML:2.0:cm:bearer";

/** XML Signature algorithms (XMLDSig 1.1 §6, RFC 6931): what we sign with. */
export const ALGORITHMS = {
  rsa_sha256: "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
  sha256: "http://www.w3.org/2001/04/xmlenc#sha256",
  exc_c14n: "http://www.w3.org/2001/10/xml-exc-c14n#",
  enveloped: "http://www.w3.org/2000/09/xmldsig#enveloped-signature",
} as const;

/**
 * Signature algorithms accepted on a service provider's request, with their node:crypto digest.
 * RSA-SHA1 is refused (RFC 6931 §2.3.2 and XMLDSig 1.1 §6.4.2 deprecate it).
 */
export const ACCEPTED_SIGNATURE_ALGORITHMS: Readonly<Record<string, "sha256" | "sha384" | "sha512">> = {
  "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256": "sha256",
  "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384": "sha384",
  "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512": "sha512",
};
