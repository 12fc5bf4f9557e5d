/**
 * The Response of the Web Browser SSO profile (SAML Core §3.2.2, SAML Profiles §4.1.4.2): a
 * bearer Assertion for the service provider, signed with RSA-SHA256 (signatures.ts) as its
 * operator chose (`sign`: the Assertion, the Response, or both), and delivered by the browser to
 * its ACS in an auto-submitted form (SAML Bindings §3.5).
 *
 * The Assertion (SAML Core §2.3.3) carries:
 * - the Subject: the NameID (subject.ts) and a bearer SubjectConfirmation whose data names the
 *   ACS (Recipient), the request (InResponseTo) and a short NotOnOrAfter (SAML Profiles
 *   §4.1.4.2);
 * - Conditions: NotBefore a minute back and NotOnOrAfter five minutes on (clocks disagree a
 *   little), and the service provider's entityID as the only Audience;
 * - the AuthnStatement: when the user signed in (AuthnInstant), a SessionIndex for this session
 *   and service provider, the session's end (SessionNotOnOrAfter), and what the sign-in was
 *   (authn_context.ts);
 * - the attributes (attributes.ts).
 * With `encrypt` the Assertion travels encrypted (encrypt.ts, SAML Core §2.3.4).
 * An error Response (no Assertion) carries a status code and is signed too.
 */
import { sha256 } from "../crypto/secrets.ts";
import { random_token } from "../crypto/secrets.ts";
import type { Provider } from "../provider.ts";
import type { SamlServiceProviderRow } from "../../store/types.ts";
import type { Attribute } from "./attributes.ts";
import { authn_context_class } from "./authn_context.ts";
import { encrypt_assertion } from "./encrypt.ts";
import { signing_key } from "./keys.ts";
import { idp_entity_id } from "./metadata.ts";
import { BEARER, NS, STATUS } from "./names.ts";
import { sign_root } from "./signatures.ts";
import { stored_sp_metadata } from "./sp_metadata.ts";
import type { NameId } from "./subject.ts";
import { escape_xml as x } from "./xml.ts";

/** How long an Assertion may be presented, and how far back it is valid (clock skew). */
export const ASSERTION_LIFETIME = 300;
export const NOT_BEFORE_SKEW = 60;

/** xs:dateTime in UTC, whole seconds (SAML Core §1.3.3). */
export function saml_time(unix_seconds: number): string {
  return new Date(unix_seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** A new xs:ID: an underscore (an NCName cannot start with a digit) and 160 random bits. */
export function new_id(): string {
  return `_${random_token(20)}`;
}

/**
 * The SessionIndex given to a service provider (SAML Core §2.7.2): the same for one session and
 * one service provider, different for another, and telling nothing of the session cookie.
 */
export function session_index(session_id_hash: string, entity_id: string): string {
  return `_${sha256(`saml-session|${session_id_hash}|${entity_id}`)}`;
}

export type Delivery = {
  sp: SamlServiceProviderRow;
  /** The ACS URL (from the service provider's metadata) the form posts to. */
  acs: string;
  /** The AuthnRequest's ID; null for an unsolicited (IdP-initiated) response. */
  in_response_to: string | null;
};

export type Authenticated = {
  name_id: NameId;
  attributes: readonly Attribute[];
  session: { id_hash: string; auth_time: number; amr: readonly string[]; expires_at: number };
};

function name_id_xml(name_id: NameId): string {
  const qualifiers =
    (name_id.name_qualifier === null ? "" : ` NameQualifier="${x(name_id.name_qualifier)}"`) +
    (name_id.sp_name_qualifier === null ? "" : ` SPNameQualifier="${x(name_id.sp_name_qualifier)}"`);
  return `<saml:NameID Format="${x(name_id.format)}"${qualifiers}>${x(name_id.value)}</saml:NameID>`;
}

function attributes_xml(attributes: readonly Attribute[]): string {
  if (attributes.length === 0) return "";
  const items = attributes
    .map((attribute) => {
      const friendly = attribute.friendly_name === null ? "" : ` FriendlyName="${x(attribute.friendly_name)}"`;
      const values = attribute.values.map((value) => `<saml:AttributeValue xsi:type="xs:string">${x(value)}</saml:AttributeValue>`).join("");
      return `<saml:Attribute Name="${x(attribute.name)}" NameFormat="${x(attribute.name_format)}"${friendly}>${values}</saml:Attribute>`;
    })
    .join("");
  return `<saml:AttributeStatement>${items}</saml:AttributeStatement>`;
}

function assertion_xml(idp: Provider, delivery: Delivery, who: Authenticated, now: number): string {
  const issuer = x(idp_entity_id(idp));
  const in_response_to = delivery.in_response_to === null ? "" : ` InResponseTo="${x(delivery.in_response_to)}"`;
  const expires = saml_time(now + ASSERTION_LIFETIME);
  return (
    `<saml:Assertion xmlns:saml="${NS.assertion}" xmlns:xs="${NS.xs}" xmlns:xsi="${NS.xsi}" ID="${new_id()}" Version="2.0" IssueInstant="${saml_time(now)}">` +
    `<saml:Issuer>${issuer}</saml:Issuer>` +
    `<saml:Subject>${name_id_xml(who.name_id)}` +
    `<saml:SubjectConfirmation Method="${BEARER}"><saml:SubjectConfirmationData NotOnOrAfter="${expires}" Recipient="${x(delivery.acs)}"${in_response_to}/></saml:SubjectConfirmation>` +
    `</saml:Subject>` +
    `<saml:Conditions NotBefore="${saml_time(now - NOT_BEFORE_SKEW)}" NotOnOrAfter="${expires}">` +
    `<saml:AudienceRestriction><saml:Audience>${x(delivery.sp.entity_id)}</saml:Audience></saml:AudienceRestriction>` +
    `</saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${saml_time(who.session.auth_time)}" SessionIndex="${session_index(who.session.id_hash, delivery.sp.entity_id)}" SessionNotOnOrAfter="${saml_time(who.session.expires_at)}">` +
    `<saml:AuthnContext><saml:AuthnContextClassRef>${authn_context_class(who.session.amr)}</saml:AuthnContextClassRef></saml:AuthnContext>` +
    `</saml:AuthnStatement>` +
    attributes_xml(who.attributes) +
    `</saml:Assertion>`
  );
}

function response_xml(idp: Provider, delivery: Delivery, now: number, status: string, inner: string): string {
  const in_response_to = delivery.in_response_to === null ? "" : ` InResponseTo="${x(delivery.in_response_to)}"`;
  return (
    `<samlp:Response xmlns:samlp="${NS.protocol}" xmlns:saml="${NS.assertion}" ID="${new_id()}" Version="2.0" IssueInstant="${saml_time(now)}" Destination="${x(delivery.acs)}"${in_response_to}>` +
    `<saml:Issuer>${x(idp_entity_id(idp))}</saml:Issuer>` +
    status +
    inner +
    `</samlp:Response>`
  );
}

/** Why an Assertion cannot be encrypted for a service provider set to `encrypt` (its metadata has no RSA encryption key now). */
export class NoEncryptionKey extends Error {
  override name = "NoEncryptionKey";
}

/**
 * A successful Response with the signed Assertion (and a signed Response when the operator
 * asked); with `encrypt`, the Assertion — signed first (SAML Core §6.1) — goes as an
 * EncryptedAssertion (encrypt.ts), and the Response around it is signed as the operator chose.
 */
export async function success_response(idp: Provider, delivery: Delivery, who: Authenticated): Promise<string> {
  const now = idp.now();
  const key = signing_key(idp);
  const sign = delivery.sp.sign;
  let assertion = assertion_xml(idp, delivery, who, now);
  if (sign === "assertion" || sign === "both") assertion = sign_root(assertion, key);
  if (delivery.sp.encrypt) {
    const target = stored_sp_metadata(delivery.sp.metadata_xml).encryption_keys[0];
    if (target === undefined) throw new NoEncryptionKey(`the metadata of ${delivery.sp.entity_id} has no RSA encryption certificate`);
    assertion = await encrypt_assertion(assertion, target);
  }
  const response = response_xml(idp, delivery, now, `<samlp:Status><samlp:StatusCode Value="${STATUS.success}"/></samlp:Status>`, assertion);
  return sign === "response" || sign === "both" ? sign_root(response, key) : response;
}

/**
 * An error Response (SAML Core §3.2.2.2): the top-level code (Requester or Responder) with the
 * second-level code that says why, and a message. Signed, so the service provider can trust it.
 */
export function error_response(idp: Provider, delivery: Delivery, top: string, second: string | null, message: string): string {
  const inner = second === null ? "" : `<samlp:StatusCode Value="${x(second)}"/>`;
  const status = `<samlp:Status><samlp:StatusCode Value="${x(top)}">${inner}</samlp:StatusCode><samlp:StatusMessage>${x(message)}</samlp:StatusMessage></samlp:Status>`;
  return sign_root(response_xml(idp, delivery, idp.now(), status, ""), signing_key(idp));
}

/** The form field of the HTTP-POST binding (SAML Bindings §3.5.4): base64 of the UTF-8 XML. */
export function post_encoded(xml: string): string {
  return Buffer.from(xml, "utf8").toString("base64");
}
