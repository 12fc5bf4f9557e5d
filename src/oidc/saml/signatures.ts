/**
 * XML and URL signatures of SAML messages, made and checked by xml-crypto (XMLDSig) and
 * node:crypto, never by hand-written canonicalization.
 *
 * Checking a service provider's AuthnRequest:
 * - HTTP-Redirect (SAML Bindings §3.4.4.1): the signature covers the URL-encoded query string
 *   `SAMLRequest=…&RelayState=…&SigAlg=…` exactly as sent, so it is checked over the raw query,
 *   never over re-encoded values; the message itself must carry no ds:Signature.
 * - HTTP-POST (SAML Bindings §3.5.4): an enveloped ds:Signature. Against signature wrapping
 *   (XSW: a signed element moved aside while the one read is a forgery), the only shape accepted
 *   is the one SAML Core §5.4.1 profiles: one ds:Signature in the whole document, a child of the
 *   root, with one Reference whose URI is `#` + the root's ID, and no other element carrying that
 *   ID. What the request is then read from is the signed octets xml-crypto returns
 *   (`getSignedReferences`), parsed again — never the document that came in.
 * - Algorithms: RSA with SHA-256 or stronger (names.ts ACCEPTED_SIGNATURE_ALGORITHMS), a
 *   certificate of the service provider's metadata (no key from the message's KeyInfo).
 *
 * Signing our Responses and Assertions (SAML Core §5.4): RSA-SHA256, exclusive c14n, the
 * enveloped-signature transform, the ds:Signature right after the signed element's Issuer, as
 * the schema orders them.
 */
import { verify, X509Certificate, type KeyObject } from "node:crypto";
import { SignedXml } from "xml-crypto";
import type { Document, Element } from "@xmldom/xmldom";
import { certificate_pem } from "./certificate.ts";
import type { SamlSigningKey } from "./keys.ts";
import { ACCEPTED_SIGNATURE_ALGORITHMS, ALGORITHMS, NS } from "./names.ts";
import { SamlRefusal } from "./refusal.ts";
import { MAX_MESSAGE_BYTES, XmlRejected, attribute, children, decode_base64, parse_xml, required_child } from "./xml.ts";

const ELEMENT_NODE = 1;

/** The canonicalizations a service provider's SignedInfo and Reference may use (XMLDSig §6.5, Exclusive C14N). */
const CANONICALIZATIONS = new Set([
  "http://www.w3.org/2001/10/xml-exc-c14n#",
  "http://www.w3.org/2001/10/xml-exc-c14n#WithComments",
  "http://www.w3.org/TR/2001/REC-xml-c14n-20010315",
  "http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments",
]);
const TRANSFORMS = new Set([ALGORITHMS.enveloped, ...CANONICALIZATIONS]);
const DIGESTS = new Set(["http://www.w3.org/2001/04/xmlenc#sha256", "http://www.w3.org/2001/04/xmldsig-more#sha384", "http://www.w3.org/2001/04/xmlenc#sha512"]);

function public_key(certificate: string): KeyObject {
  return new X509Certificate(Buffer.from(certificate, "base64")).publicKey;
}

/** Every element of `doc` in document order (iterative: depth is bounded by xml.ts anyway). */
function all_elements(doc: Document): Element[] {
  const out: Element[] = [];
  const stack: Element[] = [doc.documentElement!];
  while (stack.length > 0) {
    const element = stack.pop()!;
    out.push(element);
    const kids: Element[] = [];
    for (let child = element.firstChild; child !== null; child = child.nextSibling) if (child.nodeType === ELEMENT_NODE) kids.push(child as Element);
    stack.push(...kids.reverse());
  }
  return out;
}

/**
 * The ds:Signature of a POST-binding message, when there is one, after the shape checks above
 * (SamlRefusal "wrapped" otherwise). Null: the message is unsigned.
 */
function enveloped_signature(doc: Document): Element | null {
  const root = doc.documentElement!;
  const elements = all_elements(doc);
  const signatures = elements.filter((e) => e.namespaceURI === NS.dsig && e.localName === "Signature");
  if (signatures.length === 0) return null;
  if (signatures.length > 1 || signatures[0]!.parentNode !== root)
    throw new SamlRefusal("wrapped", "The request's signature is not where SAML puts it (one signature, on the request itself).");
  const id = attribute(root, "ID");
  if (id === null || id === "") throw new SamlRefusal("wrapped", "The signed request has no ID.");
  // One element with that ID: a second one is what a wrapping attack hides the signed original in.
  if (elements.filter((e) => e.getAttribute("ID") === id || e.getAttribute("Id") === id || e.getAttribute("id") === id).length !== 1) {
    throw new SamlRefusal("wrapped", "The request holds its ID twice.");
  }
  const signature = signatures[0]!;
  try {
    const info = required_child(signature, NS.dsig, "SignedInfo");
    const c14n = attribute(required_child(info, NS.dsig, "CanonicalizationMethod"), "Algorithm") ?? "";
    const method = attribute(required_child(info, NS.dsig, "SignatureMethod"), "Algorithm") ?? "";
    if (!CANONICALIZATIONS.has(c14n)) throw new SamlRefusal("bad_signature", "The request's signature uses a canonicalization that is not accepted.");
    if (!Object.hasOwn(ACCEPTED_SIGNATURE_ALGORITHMS, method))
      throw new SamlRefusal("bad_signature", "The request is signed with an algorithm that is not accepted (RSA with SHA-256 or stronger).");
    const references = children(info, NS.dsig, "Reference");
    if (references.length !== 1 || attribute(references[0]!, "URI") !== `#${id}`) throw new SamlRefusal("wrapped", "The request's signature does not cover the request itself.");
    const transforms = children(required_child(references[0]!, NS.dsig, "Transforms"), NS.dsig, "Transform").map((t) => attribute(t, "Algorithm") ?? "");
    if (transforms.length === 0 || transforms.length > 2 || !transforms.every((t) => TRANSFORMS.has(t))) {
      throw new SamlRefusal("bad_signature", "The request's signature uses transforms that are not accepted.");
    }
    if (!DIGESTS.has(attribute(required_child(references[0]!, NS.dsig, "DigestMethod"), "Algorithm") ?? "")) {
      throw new SamlRefusal("bad_signature", "The request's signature uses a digest that is not accepted (SHA-256 or stronger).");
    }
  } catch (error) {
    if (error instanceof XmlRejected) throw new SamlRefusal("bad_signature", "The request's signature is malformed.");
    throw error;
  }
  return signature;
}

/**
 * Checks the enveloped signature of a POST-binding message (`xml` is its text, `doc` the parse of
 * it) with the service provider's certificates. Returns the signed root element, parsed from what
 * the signature covers, or null when the message is not signed. SamlRefusal when a signature is
 * there and does not verify.
 */
export function verified_post_message(xml: string, doc: Document, certificates: readonly string[]): Element | null {
  const signature = enveloped_signature(doc);
  if (signature === null) return null;
  for (const certificate of certificates) {
    const checker = new SignedXml({ publicCert: certificate_pem(certificate), getCertFromKeyInfo: () => null });
    let valid = false;
    try {
      checker.loadSignature(signature as unknown as Parameters<SignedXml["loadSignature"]>[0]);
      valid = checker.checkSignature(xml);
    } catch {
      valid = false;
    }
    if (!valid) continue;
    const signed = checker.getSignedReferences();
    if (signed.length !== 1) continue;
    try {
      return parse_xml(signed[0]!, MAX_MESSAGE_BYTES).documentElement!;
    } catch {
      throw new SamlRefusal("bad_signature", "The signed part of the request cannot be read.");
    }
  }
  throw new SamlRefusal("bad_signature", "The request's signature does not verify with the application's registered keys.");
}

/** One pair of a query string as sent: its name decoded, its value both raw and decoded. */
type RawPair = { name: string; raw: string; value: string };

function decode_component(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    throw new SamlRefusal("malformed", "The request's query string is not correctly encoded.");
  }
}

/** The query's pairs; a repeated SAML parameter is refused (which one did the signature cover?). */
export function query_pairs(raw_query: string): Map<string, RawPair> {
  const pairs = new Map<string, RawPair>();
  for (const part of raw_query.split("&")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const raw_name = eq === -1 ? part : part.slice(0, eq);
    const raw = eq === -1 ? "" : part.slice(eq + 1);
    const name = decode_component(raw_name);
    if (pairs.has(name) && ["SAMLRequest", "RelayState", "SigAlg", "Signature"].includes(name)) throw new SamlRefusal("malformed", `The request repeats ${name}.`);
    pairs.set(name, { name, raw, value: decode_component(raw) });
  }
  return pairs;
}

/**
 * SAML Bindings §3.4.4.1: checks the signature of an HTTP-Redirect request over its raw query.
 * False when the query carries no Signature; SamlRefusal when one is there and does not verify.
 */
export function verified_redirect_query(pairs: Map<string, RawPair>, certificates: readonly string[]): boolean {
  const signature = pairs.get("Signature");
  const sig_alg = pairs.get("SigAlg");
  if (signature === undefined && sig_alg === undefined) return false;
  if (signature === undefined || sig_alg === undefined) throw new SamlRefusal("bad_signature", "The request's signature is incomplete (Signature and SigAlg go together).");
  const digest = ACCEPTED_SIGNATURE_ALGORITHMS[sig_alg.value];
  if (digest === undefined) throw new SamlRefusal("bad_signature", "The request is signed with an algorithm that is not accepted (RSA with SHA-256 or stronger).");
  const request = pairs.get("SAMLRequest")!;
  const relay = pairs.get("RelayState");
  // The octets as they appeared in the URL, in this order, RelayState only when present.
  const signed = `SAMLRequest=${request.raw}${relay === undefined ? "" : `&RelayState=${relay.raw}`}&SigAlg=${sig_alg.raw}`;
  let bytes: Uint8Array;
  try {
    bytes = decode_base64(signature.value, 2048);
  } catch {
    throw new SamlRefusal("bad_signature", "The request's signature is not valid base64.");
  }
  for (const certificate of certificates) {
    if (verify(digest, Buffer.from(signed, "utf8"), public_key(certificate), bytes)) return true;
  }
  throw new SamlRefusal("bad_signature", "The request's signature does not verify with the application's registered keys.");
}

/** Does a message of the Redirect binding still carry an XML signature (SAML Bindings §3.4.4.1 forbids it)? */
export function has_xml_signature(doc: Document): boolean {
  return all_elements(doc).some((e) => e.namespaceURI === NS.dsig && e.localName === "Signature");
}

/**
 * Signs the root element of `xml` (a samlp:Response or a saml:Assertion, with its ID) and
 * returns the document with the ds:Signature after the root's Issuer (SAML Core §5.4.1, §5.4.2).
 */
export function sign_root(xml: string, key: SamlSigningKey): string {
  const signer = new SignedXml({
    privateKey: key.private_key,
    publicCert: certificate_pem(key.certificate),
    canonicalizationAlgorithm: ALGORITHMS.exc_c14n,
    signatureAlgorithm: ALGORITHMS.rsa_sha256,
  });
  signer.addReference({ xpath: "/*", digestAlgorithm: ALGORITHMS.sha256, transforms: [ALGORITHMS.enveloped, ALGORITHMS.exc_c14n] });
  signer.computeSignature(xml, {
    prefix: "ds",
    location: { reference: `/*/*[local-name(.)='Issuer' and namespace-uri(.)='${NS.assertion}']`, action: "after" },
  });
  return signer.getSignedXml();
}
