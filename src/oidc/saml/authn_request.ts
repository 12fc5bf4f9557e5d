/**
 * An AuthnRequest from a service provider (SAML Core §3.4.1, SAML Profiles §4.1.4.1), received
 * over HTTP-Redirect or HTTP-POST and checked before anything of it is trusted:
 *
 * 1. decoded as hostile XML (xml.ts);
 * 2. the Issuer names a registered service provider (its keys and endpoints come from the
 *    operator's registration, never from the message);
 * 3. its signature verified with that service provider's keys (signatures.ts); unsigned is
 *    refused when its metadata says AuthnRequestsSigned, and the request is then read from the
 *    signed octets only;
 * 4. Destination, when present (and it must be when signed: SAML Bindings §3.4.5.2, §3.5.5.2),
 *    is our SSO URL; IssueInstant is recent;
 * 5. the assertion consumer service is one of its metadata (SAML Profiles §4.1.4.1: by URL or by
 *    index, else its default), over HTTP-POST;
 * 6. its ID is used once (the store's `use_jti`, shared by every instance);
 * 7. RelayState is passed back unchanged, bounded in length.
 */
import type { Element } from "@xmldom/xmldom";
import { sha256 } from "../crypto/secrets.ts";
import type { Provider } from "../provider.ts";
import type { SamlServiceProviderRow } from "../../store/types.ts";
import { sso_url } from "./metadata.ts";
import { BINDINGS, NS } from "./names.ts";
import { receive_incoming, type IncomingMessage } from "./incoming.ts";
import { SamlRefusal } from "./refusal.ts";
import { default_acs, type SpMetadata } from "./sp_metadata.ts";
import { XmlRejected, attribute, boolean_attribute, is_element, optional_child, required_child, text_of } from "./xml.ts";

export { MAX_RELAY_STATE, type IncomingMessage } from "./incoming.ts";

export type AuthnRequest = {
  id: string;
  issuer: string;
  issue_instant: number;
  destination: string | null;
  acs_url: string | null;
  acs_index: number | null;
  protocol_binding: string | null;
  force_authn: boolean;
  is_passive: boolean;
  /** NameIDPolicy's Format, when it names one. */
  nameid_format: string | null;
};

/** A request every check passed: the service provider, where the answer goes, what to echo. */
export type ReceivedRequest = AuthnRequest & {
  sp: SamlServiceProviderRow;
  metadata: SpMetadata;
  /** The ACS URL of the service provider's metadata the Response is posted to. */
  acs: string;
  relay_state: string | null;
  binding: "redirect" | "post";
  signed: boolean;
};

/** xs:ID (an NCName), bounded: what this provider echoes as InResponseTo. */
export const XML_ID = /^[A-Za-z_][A-Za-z0-9._-]{0,255}$/;
/** The entity Format of an Issuer (SAML Core §8.3.6), the only one SAML Profiles §4.1.4.1 allows. */
export const ENTITY_FORMAT = "urn:oasis:names:tc:SAML:2.0:nameid-format:entity";
/** How old a request may be (IssueInstant), and how far our clocks may disagree. */
export const REQUEST_LIFETIME = 600;
export const CLOCK_SKEW = 180;

export function xs_datetime(value: string | null): number | null {
  if (value === null || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/.test(value.trim())) return null;
  const ms = Date.parse(value.trim());
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

/** The fields of an AuthnRequest element (SAML Core §3.4.1); SamlRefusal "malformed" when it is not one. */
export function read_authn_request(root: Element): AuthnRequest {
  try {
    if (!is_element(root, NS.protocol, "AuthnRequest")) throw new SamlRefusal("malformed", "The message is not a SAML AuthnRequest.");
    if (attribute(root, "Version") !== "2.0") throw new SamlRefusal("malformed", "The request is not SAML 2.0.");
    const id = attribute(root, "ID") ?? "";
    if (!XML_ID.test(id)) throw new SamlRefusal("malformed", "The request's ID is missing or not an XML ID.");
    const issue_instant = xs_datetime(attribute(root, "IssueInstant"));
    if (issue_instant === null) throw new SamlRefusal("malformed", "The request's IssueInstant is missing or not a date.");
    const issuer_element = required_child(root, NS.assertion, "Issuer");
    const format = attribute(issuer_element, "Format");
    if (format !== null && format !== ENTITY_FORMAT) throw new SamlRefusal("malformed", "The request's Issuer is not an entity.");
    // A Subject asks for one particular user: not supported (the user chooses on the sign-in page).
    if (optional_child(root, NS.assertion, "Subject") !== null) throw new SamlRefusal("malformed", "Requests naming a Subject are not supported.");
    const raw_index = attribute(root, "AssertionConsumerServiceIndex");
    if (raw_index !== null && !/^\d{1,5}$/.test(raw_index.trim())) throw new SamlRefusal("malformed", "The request's AssertionConsumerServiceIndex is not a number.");
    const policy = optional_child(root, NS.protocol, "NameIDPolicy");
    return {
      id,
      issuer: text_of(issuer_element),
      issue_instant,
      destination: attribute(root, "Destination"),
      acs_url: attribute(root, "AssertionConsumerServiceURL"),
      acs_index: raw_index === null ? null : Number(raw_index.trim()),
      protocol_binding: attribute(root, "ProtocolBinding"),
      force_authn: boolean_attribute(root, "ForceAuthn", false),
      is_passive: boolean_attribute(root, "IsPassive", false),
      nameid_format: policy === null ? null : attribute(policy, "Format"),
    };
  } catch (error) {
    if (error instanceof XmlRejected) throw new SamlRefusal("malformed", `The request cannot be read: ${error.reason}.`);
    throw error;
  }
}

/** The ACS the request asks for, among those of the metadata (SAML Profiles §4.1.4.1, SAML Core §3.4.1). */
function chosen_acs(request: AuthnRequest, metadata: SpMetadata): string {
  if (request.protocol_binding !== null && request.protocol_binding !== BINDINGS.post) {
    throw new SamlRefusal("binding", "The application asked for the answer over a binding this service does not use (only HTTP-POST).");
  }
  if (request.acs_url !== null && request.acs_index !== null) throw new SamlRefusal("acs", "The request names its assertion consumer service twice (URL and index).");
  if (request.acs_url !== null) {
    // Compared exactly: an unregistered URL is never answered, signed or not.
    const found = metadata.acs.find((acs) => acs.location === request.acs_url);
    if (found === undefined) throw new SamlRefusal("acs", "The application asked for the answer at an address it has not registered.");
    return found.location;
  }
  if (request.acs_index !== null) {
    const found = metadata.acs.find((acs) => acs.index === request.acs_index);
    if (found === undefined) throw new SamlRefusal("acs", "The application asked for the answer at an address it has not registered.");
    return found.location;
  }
  return default_acs(metadata).location;
}

/** Receives an AuthnRequest: every check above, or a SamlRefusal. `sp` is set on the refusal's log once known. */
export async function receive_authn_request(idp: Provider, message: IncomingMessage, known: { sp: SamlServiceProviderRow | null }): Promise<ReceivedRequest> {
  const { request, sp, metadata, relay_state, signed } = await receive_incoming(idp, message, known, read_authn_request);
  if (!signed && metadata.authn_requests_signed) {
    throw new SamlRefusal("unsigned", "The application must sign its sign-in requests (its metadata says so), and this one is not signed.");
  }

  // SAML Bindings §3.4.5.2, §3.5.5.2: a signed message names where it was sent.
  if (request.destination === null ? signed : request.destination !== sso_url(idp)) {
    throw new SamlRefusal("destination", "The request was not addressed to this sign-in service (Destination).");
  }
  const now = idp.now();
  if (request.issue_instant > now + CLOCK_SKEW || request.issue_instant < now - REQUEST_LIFETIME - CLOCK_SKEW) {
    throw new SamlRefusal("expired", "The sign-in request is too old (or its clock is wrong). Go back to the application and start again.");
  }
  const acs = chosen_acs(request, metadata);
  // Single use across instances, kept as long as the request could still be accepted.
  const fresh = await idp.store.use_jti(`saml:${sha256(sp.entity_id)}`, sha256(request.id), request.issue_instant + REQUEST_LIFETIME + CLOCK_SKEW, now);
  if (!fresh) throw new SamlRefusal("replayed", "This sign-in request was already used. Go back to the application and start again.");
  return { ...request, sp, metadata, acs, relay_state, binding: message.binding, signed };
}
