/**
 * The messages of Single Logout we send (SAML Core §3.7, SAML Profiles §4.4), signed with the
 * key that signs our Responses (keys.ts):
 *
 * - a LogoutRequest to a session participant when the user's session here ends (§3.7.1): the
 *   NameID and SessionIndex that participant was given (store.list_saml_participants);
 * - a LogoutResponse to the service provider whose LogoutRequest we answered (§3.7.2).
 *
 * Delivered through the browser (SAML Profiles §4.4.3.2, §4.4.3.4): over HTTP-Redirect the XML is
 * deflated into the query and the signature covers the query string (SAML Bindings §3.4.4.1);
 * over HTTP-POST the XML carries an enveloped signature (§3.5.4). Always to a single logout
 * service of the service provider's registered metadata, never to a URL a message names.
 */
import { deflateRawSync } from "node:zlib";
import { sign } from "node:crypto";
import type { Provider } from "../provider.ts";
import type { SamlParticipantRow } from "../../store/types.ts";
import { signing_key } from "./keys.ts";
import { idp_entity_id } from "./metadata.ts";
import { ALGORITHMS, NS, STATUS } from "./names.ts";
import { new_id, post_encoded, saml_time } from "./response.ts";
import { sign_root } from "./signatures.ts";
import type { SingleLogoutService } from "./sp_metadata.ts";
import { escape_xml as x } from "./xml.ts";

/** How long a LogoutRequest of ours may be acted on (SAML Core §3.7.1 NotOnOrAfter). */
export const LOGOUT_REQUEST_LIFETIME = 300;

/** SAML Core §3.7.3: the user's session here ended (the reason we give). */
const REASON_USER = "urn:oasis:names:tc:SAML:2.0:logout:user";

/** A message ready for the browser: a URL to go to (HTTP-Redirect) or a form to post (HTTP-POST). */
export type Outgoing = { binding: "redirect"; url: string } | { binding: "post"; action: string; fields: Record<string, string> };

/** The LogoutRequest for `participant`, addressed to `destination`. */
export function logout_request_xml(idp: Provider, participant: SamlParticipantRow, destination: string): string {
  const now = idp.now();
  const n = participant.name_id;
  const qualifiers =
    (n.name_qualifier === null ? "" : ` NameQualifier="${x(n.name_qualifier)}"`) + (n.sp_name_qualifier === null ? "" : ` SPNameQualifier="${x(n.sp_name_qualifier)}"`);
  return (
    `<samlp:LogoutRequest xmlns:samlp="${NS.protocol}" xmlns:saml="${NS.assertion}" ID="${new_id()}" Version="2.0" IssueInstant="${saml_time(now)}"` +
    ` Destination="${x(destination)}" NotOnOrAfter="${saml_time(now + LOGOUT_REQUEST_LIFETIME)}" Reason="${REASON_USER}">` +
    `<saml:Issuer>${x(idp_entity_id(idp))}</saml:Issuer>` +
    `<saml:NameID Format="${x(n.format)}"${qualifiers}>${x(n.value)}</saml:NameID>` +
    `<samlp:SessionIndex>${x(participant.session_index)}</samlp:SessionIndex>` +
    `</samlp:LogoutRequest>`
  );
}

/** The LogoutResponse to the request `in_response_to` (SAML Core §3.7.2), with a top-level status code. */
export function logout_response_xml(idp: Provider, destination: string, in_response_to: string, status: string = STATUS.success, message: string | null = null): string {
  const text = message === null ? "" : `<samlp:StatusMessage>${x(message)}</samlp:StatusMessage>`;
  return (
    `<samlp:LogoutResponse xmlns:samlp="${NS.protocol}" xmlns:saml="${NS.assertion}" ID="${new_id()}" Version="2.0" IssueInstant="${saml_time(idp.now())}"` +
    ` Destination="${x(destination)}" InResponseTo="${x(in_response_to)}">` +
    `<saml:Issuer>${x(idp_entity_id(idp))}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="${x(status)}"/>${text}</samlp:Status>` +
    `</samlp:LogoutResponse>`
  );
}

/**
 * `xml` (a LogoutRequest or LogoutResponse), signed, for the single logout service `slo`:
 * `field` is SAMLRequest or SAMLResponse, `to` the URL (its Location or ResponseLocation).
 */
export function outgoing(idp: Provider, xml: string, slo: SingleLogoutService, field: "SAMLRequest" | "SAMLResponse", to: string, relay_state: string | null): Outgoing {
  const key = signing_key(idp);
  if (slo.binding === "post") {
    const fields: Record<string, string> = { [field]: post_encoded(sign_root(xml, key)) };
    if (relay_state !== null) fields.RelayState = relay_state;
    return { binding: "post", action: to, fields };
  }
  // SAML Bindings §3.4.4.1: DEFLATE, base64, URL-encoding; the signature over the query as sent.
  const encoded = encodeURIComponent(deflateRawSync(Buffer.from(xml, "utf8")).toString("base64"));
  let query = `${field}=${encoded}`;
  if (relay_state !== null) query += `&RelayState=${encodeURIComponent(relay_state)}`;
  query += `&SigAlg=${encodeURIComponent(ALGORITHMS.rsa_sha256)}`;
  const signature = sign("sha256", Buffer.from(query, "utf8"), key.private_key).toString("base64");
  query += `&Signature=${encodeURIComponent(signature)}`;
  return { binding: "redirect", url: `${to}${to.includes("?") ? "&" : "?"}${query}` };
}
