/**
 * A service provider's LogoutRequest (SAML Core §3.7.1, SAML Profiles §4.4.4.1), received over
 * HTTP-Redirect or HTTP-POST at our single logout service and checked as an AuthnRequest is
 * (authn_request.ts), before anything of it is acted on:
 *
 * 1. decoded as hostile XML (xml.ts); the Issuer names a registered service provider;
 * 2. its signature verified with that service provider's keys (signatures.ts); SAML Profiles
 *    §4.4.4.1 requires the requester to authenticate the message, so it must be signed whenever
 *    the metadata holds a signing key. A service provider without one may send it unsigned, and
 *    then must name a SessionIndex we gave it (256 bits it alone received, response.ts);
 * 3. Destination (required when signed: SAML Bindings §3.4.5.2, §3.5.5.2) is our SLO URL;
 *    IssueInstant is recent and NotOnOrAfter not past;
 * 4. the service provider has a single logout service over HTTP-Redirect or HTTP-POST in its
 *    metadata, where the answer goes;
 * 5. its ID is used once (the store's `use_jti`).
 * The NameID (an EncryptedID is not supported) and the SessionIndexes name the sessions it ends:
 * slo.ts looks them up among the sessions that gave that service provider that NameID.
 */
import type { Element } from "@xmldom/xmldom";
import { sha256 } from "../crypto/secrets.ts";
import type { Provider } from "../provider.ts";
import type { SamlServiceProviderRow } from "../../store/types.ts";
import { CLOCK_SKEW, ENTITY_FORMAT, REQUEST_LIFETIME, XML_ID, xs_datetime } from "./authn_request.ts";
import { receive_incoming, type IncomingMessage } from "./incoming.ts";
import { slo_url } from "./metadata.ts";
import { NS } from "./names.ts";
import { SamlRefusal } from "./refusal.ts";
import { logout_service, stored_sp_metadata, type SingleLogoutService } from "./sp_metadata.ts";
import { XmlRejected, attribute, children, is_element, optional_child, required_child, text_of } from "./xml.ts";

export type LogoutRequest = {
  id: string;
  issuer: string;
  issue_instant: number;
  not_on_or_after: number | null;
  destination: string | null;
  name_id: { value: string; format: string | null };
  session_indexes: string[];
};

export type ReceivedLogout = LogoutRequest & {
  sp: SamlServiceProviderRow;
  /** Where the LogoutResponse goes (the service provider's metadata). */
  slo: SingleLogoutService;
  relay_state: string | null;
  binding: "redirect" | "post";
  signed: boolean;
};

/** More SessionIndexes than a session could have given are refused (bounds the lookups). */
const MAX_SESSION_INDEXES = 16;

/** The fields of a LogoutRequest element; SamlRefusal "malformed" when it is not one. */
export function read_logout_request(root: Element): LogoutRequest {
  try {
    if (!is_element(root, NS.protocol, "LogoutRequest")) throw new SamlRefusal("malformed", "The message is not a SAML LogoutRequest.");
    if (attribute(root, "Version") !== "2.0") throw new SamlRefusal("malformed", "The request is not SAML 2.0.");
    const id = attribute(root, "ID") ?? "";
    if (!XML_ID.test(id)) throw new SamlRefusal("malformed", "The request's ID is missing or not an XML ID.");
    const issue_instant = xs_datetime(attribute(root, "IssueInstant"));
    if (issue_instant === null) throw new SamlRefusal("malformed", "The request's IssueInstant is missing or not a date.");
    const raw_expiry = attribute(root, "NotOnOrAfter");
    const not_on_or_after = raw_expiry === null ? null : xs_datetime(raw_expiry);
    if (raw_expiry !== null && not_on_or_after === null) throw new SamlRefusal("malformed", "The request's NotOnOrAfter is not a date.");
    const issuer_element = required_child(root, NS.assertion, "Issuer");
    const format = attribute(issuer_element, "Format");
    if (format !== null && format !== ENTITY_FORMAT) throw new SamlRefusal("malformed", "The request's Issuer is not an entity.");
    if (optional_child(root, NS.assertion, "EncryptedID") !== null || optional_child(root, NS.assertion, "BaseID") !== null) {
      throw new SamlRefusal("malformed", "Only a plain NameID is supported in a LogoutRequest.");
    }
    const name_id = required_child(root, NS.assertion, "NameID");
    const session_indexes = children(root, NS.protocol, "SessionIndex").map(text_of);
    if (session_indexes.length > MAX_SESSION_INDEXES) throw new SamlRefusal("malformed", "The request names too many sessions.");
    return {
      id,
      issuer: text_of(issuer_element),
      issue_instant,
      not_on_or_after,
      destination: attribute(root, "Destination"),
      name_id: { value: text_of(name_id), format: attribute(name_id, "Format") },
      session_indexes,
    };
  } catch (error) {
    if (error instanceof XmlRejected) throw new SamlRefusal("malformed", `The request cannot be read: ${error.reason}.`);
    throw error;
  }
}

/** Receives a LogoutRequest: every check above, or a SamlRefusal. `known.sp` is set once known (for the audit). */
export async function receive_logout_request(idp: Provider, message: IncomingMessage, known: { sp: SamlServiceProviderRow | null }): Promise<ReceivedLogout> {
  const { request, sp, metadata, relay_state, signed } = await receive_incoming(idp, message, known, read_logout_request);
  // SAML Profiles §4.4.4.1: the requester authenticates its LogoutRequest.
  if (!signed && metadata.signing_certificates.length > 0) {
    throw new SamlRefusal("unsigned", "The application must sign its sign-out requests (its metadata holds a signing key), and this one is not signed.");
  }
  if (!signed && request.session_indexes.length === 0) {
    throw new SamlRefusal("unsigned", "An unsigned sign-out request must name the session (SessionIndex).");
  }
  if (request.destination === null ? signed : request.destination !== slo_url(idp)) {
    throw new SamlRefusal("destination", "The request was not addressed to this sign-out service (Destination).");
  }
  const now = idp.now();
  if (request.issue_instant > now + CLOCK_SKEW || request.issue_instant < now - REQUEST_LIFETIME - CLOCK_SKEW) {
    throw new SamlRefusal("expired", "The sign-out request is too old (or its clock is wrong).");
  }
  if (request.not_on_or_after !== null && request.not_on_or_after + CLOCK_SKEW <= now) throw new SamlRefusal("expired", "The sign-out request has expired (NotOnOrAfter).");
  const slo = logout_service(metadata);
  if (slo === null) throw new SamlRefusal("no_slo", "The application has no single logout service in its registered metadata to answer to.");
  const fresh = await idp.store.use_jti(`saml-logout:${sha256(sp.entity_id)}`, sha256(request.id), request.issue_instant + REQUEST_LIFETIME + CLOCK_SKEW, now);
  if (!fresh) throw new SamlRefusal("replayed", "This sign-out request was already used.");
  // Answer over the binding it came by when the service provider offers it there.
  const same = stored_sp_metadata(sp.metadata_xml).slo.find((s) => s.binding === message.binding) ?? slo;
  return { ...request, sp, slo: same, relay_state, binding: message.binding, signed };
}
