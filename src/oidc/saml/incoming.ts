/**
 * The first half of receiving any request a service provider sends (an AuthnRequest,
 * authn_request.ts; a LogoutRequest, logout_request.ts): read it off its binding, bounded;
 * find the service provider by the Issuer it claims; check its signature with that provider's
 * registered keys — in the URL for HTTP-Redirect (SAML Bindings §3.4.4.1), in the XML for
 * HTTP-POST — and from then on read only the element the signature covers (signature wrapping).
 * What each kind of request must also satisfy stays with its reader.
 */
import type { Element } from "@xmldom/xmldom";
import type { Provider } from "../provider.ts";
import type { SamlServiceProviderRow } from "../../store/types.ts";
import { SamlRefusal } from "./refusal.ts";
import { has_xml_signature, query_pairs, verified_post_message, verified_redirect_query } from "./signatures.ts";
import { stored_sp_metadata, type SpMetadata } from "./sp_metadata.ts";
import { XmlRejected, parse_xml, post_message_text, redirect_message_text } from "./xml.ts";

export type IncomingMessage =
  /** HTTP-Redirect: the raw query string (its signature covers the octets as sent). */
  | { binding: "redirect"; raw_query: string }
  /** HTTP-POST: the form's fields. */
  | { binding: "post"; saml_request: string; relay_state: string | null };

/**
 * SAML Bindings §3.4.3 limits RelayState to 80 bytes, but service providers in use send longer
 * values (mod_auth_mellon sends the return URL): 1024 bytes, refused beyond.
 */
export const MAX_RELAY_STATE = 1024;

export type Incoming<T> = {
  /** The request as the signature covers it (as sent when unsigned). */
  request: T;
  sp: SamlServiceProviderRow;
  metadata: SpMetadata;
  relay_state: string | null;
  signed: boolean;
};

/** Reads and authenticates a request; `read` parses its root element. `known.sp` is set once known (for the audit). */
export async function receive_incoming<T extends { issuer: string }>(
  idp: Provider,
  message: IncomingMessage,
  known: { sp: SamlServiceProviderRow | null },
  read: (root: Element) => T,
): Promise<Incoming<T>> {
  let encoded: string;
  let relay_state: string | null;
  let pairs: ReturnType<typeof query_pairs> | null = null;
  if (message.binding === "redirect") {
    pairs = query_pairs(message.raw_query);
    const request = pairs.get("SAMLRequest");
    if (request === undefined || request.value === "") throw new SamlRefusal("malformed", "The request carries no SAMLRequest.");
    encoded = request.value;
    relay_state = pairs.get("RelayState")?.value ?? null;
  } else {
    encoded = message.saml_request;
    relay_state = message.relay_state;
  }
  if (relay_state !== null && Buffer.byteLength(relay_state, "utf8") > MAX_RELAY_STATE)
    throw new SamlRefusal("relay_state", `The request's RelayState is longer than ${MAX_RELAY_STATE} bytes.`);

  let doc: ReturnType<typeof parse_xml>;
  let xml: string;
  try {
    xml = message.binding === "redirect" ? redirect_message_text(encoded) : post_message_text(encoded);
    doc = parse_xml(xml);
  } catch (error) {
    if (error instanceof XmlRejected) throw new SamlRefusal("malformed", `The request cannot be read: ${error.reason}.`);
    throw error;
  }
  // The Issuer of the message as it came, only to find whose keys check it.
  const claimed = read(doc.documentElement!);
  const sp = await idp.store.get_saml_service_provider(claimed.issuer);
  if (sp === null) throw new SamlRefusal("unknown_sp", "The application that sent you here is not registered with this sign-in service.");
  known.sp = sp;
  const metadata = stored_sp_metadata(sp.metadata_xml);

  let request = claimed;
  let signed: boolean;
  if (message.binding === "redirect") {
    if (has_xml_signature(doc)) throw new SamlRefusal("bad_signature", "A request over HTTP-Redirect must be signed in its URL, not in its XML.");
    signed = verified_redirect_query(pairs!, metadata.signing_certificates);
  } else {
    const signed_root = verified_post_message(xml, doc, metadata.signing_certificates);
    signed = signed_root !== null;
    // What the signature covers is what we act on (signature wrapping).
    if (signed_root !== null) request = read(signed_root);
    if (request.issuer !== claimed.issuer) throw new SamlRefusal("wrapped", "The signed request is not the request that was sent.");
  }
  return { request, sp, metadata, relay_state, signed };
}
