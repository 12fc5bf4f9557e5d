/**
 * The steps of a SAML single sign-on (SAML Profiles §4.1), from a checked request to the
 * Response the browser carries to the service provider:
 *
 * 1. `start`: an AuthnRequest is received (authn_request.ts) and kept as a pending request
 *    (pending.ts); a refusal is audited and shown as a page — its ACS is not trusted, so nothing
 *    is sent to it.
 * 2. `resume`, in the browser that started it: the browser's session is the one of OpenID (one
 *    sign-in serves both). Without one, or with ForceAuthn and a session older than the request,
 *    the user signs in on our sign-in page (the account's own: password, second factor, passkeys,
 *    upstreams; it returns here through browser/return_path.ts); IsPassive answers NoPassive
 *    instead (SAML Core §3.4.1). Then the service provider's access policy (its allowed groups)
 *    and the NameID format, and the signed Response (response.ts).
 *
 * IdP-initiated (unsolicited, SAML Profiles §4.1.5): `start_idp_initiated` makes the same
 * pending request without an AuthnRequest, for a service provider whose operator allowed it
 * (`--idp-initiated`, off by default), to its default ACS; the Response then has no InResponseTo.
 *
 * Each service provider given an Assertion is remembered with the session, with the NameID and
 * SessionIndex it got (store.add_saml_participant): Single Logout tells it (slo.ts).
 *
 * Every sign-in and every refusal is audited as `saml_login` (`details.entity_id`, and
 * `details.reason` of a refusal).
 */
import { account_url } from "../browser/account_guard.ts";
import type { CookieReader, CookieToSet } from "../browser/cookies.ts";
import { return_cookie } from "../browser/return_path.ts";
import { record_event } from "../audit.ts";
import { not_active } from "../accounts/account_status.ts";
import { PageError } from "../errors.ts";
import type { Provider } from "../provider.ts";
import { current_session } from "../signin/sessions.ts";
import { group_name_key } from "../../store/group_names.ts";
import type { JsonObject, SamlServiceProviderRow } from "../../store/types.ts";
import { user_attributes } from "./attributes.ts";
import { attribute_claims_of_users } from "../attributes/claims.ts";
import { MAX_RELAY_STATE, receive_authn_request, type IncomingMessage } from "./authn_request.ts";
import { idp_entity_id } from "./metadata.ts";
import { NAMEID_FORMATS, STATUS } from "./names.ts";
import { end_pending, expired_pending, load_pending, resume_path, resume_url, save_pending, type PendingSaml } from "./pending.ts";
import { SamlRefusal } from "./refusal.ts";
import { NoEncryptionKey, error_response, post_encoded, session_index, success_response, type Delivery } from "./response.ts";
import { default_acs, stored_sp_metadata } from "./sp_metadata.ts";
import { name_id } from "./subject.ts";

type Audit = { outcome: "success" | "failure"; ip: string; user_id?: string | null; details: JsonObject };

function audit(idp: Provider, event: Audit): Promise<unknown> {
  return record_event(idp, { type: "saml_login", outcome: event.outcome, user_id: event.user_id ?? null, ip: event.ip, details: event.details });
}

/** Receives an AuthnRequest and keeps it; returns the URL that goes on in the browser. */
export async function start_sso(idp: Provider, message: IncomingMessage, ip: string): Promise<string> {
  const known: { sp: SamlServiceProviderRow | null } = { sp: null };
  try {
    const request = await receive_authn_request(idp, message, known);
    const pending: PendingSaml = {
      entity_id: request.sp.entity_id,
      request_id: request.id,
      acs: request.acs,
      relay_state: request.relay_state,
      force_authn: request.force_authn,
      is_passive: request.is_passive,
      binding: request.binding,
      signed: request.signed,
      created_at: idp.now(),
      nameid_format: request.nameid_format,
    };
    return resume_url(idp, await save_pending(idp, pending));
  } catch (error) {
    if (!(error instanceof SamlRefusal)) throw error;
    await audit(idp, { outcome: "failure", ip, details: { entity_id: known.sp?.entity_id ?? null, binding: message.binding, reason: error.reason } });
    throw new PageError("The application sent an invalid sign-in request", error.message, error.reason === "unknown_sp" ? "invalid_client" : "invalid_request").for_log({
      ...(known.sp === null ? {} : { client_id: known.sp.entity_id }),
      parameter: "SAMLRequest",
      value: error.reason,
    });
  }
}

/**
 * A sign-in started here for the service provider `entity_id` (SAML Profiles §4.1.5), with the
 * RelayState to hand it (where to go, its own business). Returns the URL that goes on in the
 * browser; a page when the service provider is unknown or does not allow it.
 */
export async function start_idp_initiated(idp: Provider, entity_id: string, relay_state: string | null, ip: string): Promise<string> {
  const sp = await idp.store.get_saml_service_provider(entity_id);
  const refuse = async (reason: string, error: PageError): Promise<never> => {
    await audit(idp, { outcome: "failure", ip, details: { entity_id: sp?.entity_id ?? null, binding: "idp_initiated", reason } });
    throw error;
  };
  if (sp === null) return refuse("unknown_sp", new PageError("Unknown application", "There is no SAML application of that name on this sign-in service.", "invalid_client", true));
  if (!sp.idp_initiated) {
    return refuse(
      "idp_initiated_off",
      new PageError("Sign in from the application", `${sp.name} accepts only sign-ins it starts itself. Open ${sp.name} and sign in from there.`, "access_denied"),
    );
  }
  if (relay_state !== null && Buffer.byteLength(relay_state, "utf8") > MAX_RELAY_STATE) {
    return refuse("relay_state", new PageError("The link is invalid", `Its RelayState is longer than ${MAX_RELAY_STATE} bytes.`, "invalid_request"));
  }
  const pending: PendingSaml = {
    entity_id: sp.entity_id,
    request_id: null,
    acs: default_acs(stored_sp_metadata(sp.metadata_xml)).location,
    relay_state,
    force_authn: false,
    is_passive: false,
    binding: "idp_initiated",
    signed: false,
    nameid_format: null,
    created_at: idp.now(),
  };
  return resume_url(idp, await save_pending(idp, pending));
}

/** What the browser does next: sign in, or carry the Response (fields of the auto-submitted form) to the ACS. */
export type SsoStep =
  | { kind: "sign_in"; url: string; cookies: CookieToSet[] }
  | { kind: "post"; acs: string; fields: Record<string, string>; cookies: CookieToSet[]; sp_name: string };

/** NameIDPolicy (SAML Core §3.4.1.1): a format other than the one chosen for the service provider, and not "unspecified". */
function refuses_nameid_policy(requested: string | null, sp: SamlServiceProviderRow): boolean {
  return requested !== null && requested !== NAMEID_FORMATS.unspecified && requested !== NAMEID_FORMATS[sp.nameid_format];
}

/** The pending request `id`, in this browser: sign in first, or the Response. */
export async function resume_sso(idp: Provider, id: string, cookies: CookieReader, ip: string): Promise<SsoStep> {
  const { pending, cookie } = await load_pending(idp, id, cookies);
  const set: CookieToSet[] = cookie === null ? [] : [cookie];
  const sp = await idp.store.get_saml_service_provider(pending.entity_id);
  if (sp === null) {
    await end_pending(idp, id);
    throw new PageError("Unknown application", "The application that sent you here is no longer registered.", "invalid_client");
  }
  const delivery: Delivery = { sp, acs: pending.acs, in_response_to: pending.request_id };
  const base = { entity_id: sp.entity_id, binding: pending.binding };
  /** Ends the request with an error Response to the (verified) ACS, audited. */
  const answer_error = async (second: string, message: string, reason: string, user_id: string | null = null): Promise<SsoStep> => {
    if (!(await end_pending(idp, id))) throw expired_pending();
    await audit(idp, { outcome: "failure", ip, user_id, details: { ...base, reason } });
    const xml = error_response(idp, delivery, second === STATUS.request_denied || second === STATUS.invalid_nameid_policy ? STATUS.requester : STATUS.responder, second, message);
    return post_step(xml, pending, sp, set);
  };

  if (refuses_nameid_policy(pending.nameid_format, sp)) {
    return answer_error(STATUS.invalid_nameid_policy, "This identity provider gives this service provider another NameID format.", "nameid_policy");
  }
  const active = await current_session(idp, cookies);
  // SAML Core §3.4.1 ForceAuthn: the user must authenticate again, after the request.
  if (active === null || (pending.force_authn && active.session.auth_time < pending.created_at)) {
    if (pending.is_passive) return answer_error(STATUS.no_passive, "The user is not signed in.", "no_passive");
    const back = return_cookie(idp, resume_path(id));
    if (back === null) throw expired_pending();
    // prompt=login: the sign-in page shows its form even to a signed-in user (ForceAuthn).
    return { kind: "sign_in", url: `${account_url(idp, "login")}${active === null ? "" : "?prompt=login"}`, cookies: [...set, back] };
  }
  const { session, user } = active;
  const refused = not_active(user);
  if (refused !== null) {
    await end_pending(idp, id);
    await audit(idp, { outcome: "failure", ip, user_id: user.id, details: { ...base, reason: "account_status" } });
    throw refused;
  }
  const groups = await idp.store.list_user_groups(user.id);
  if (sp.allowed_groups.length > 0) {
    const allowed = new Set(sp.allowed_groups.map(group_name_key));
    if (!groups.some((group) => allowed.has(group_name_key(group)))) {
      // IsPassive: no page may be shown, the service provider is told instead.
      if (pending.is_passive) return answer_error(STATUS.request_denied, "The user may not use this service provider.", "group", user.id);
      await end_pending(idp, id);
      await audit(idp, { outcome: "failure", ip, user_id: user.id, details: { ...base, reason: "group" } });
      throw new PageError("Access denied", `Your account is not in a group allowed to use ${sp.name}. Ask your administrator for access.`, "access_denied");
    }
  }
  const subject = name_id(sp, user, idp_entity_id(idp));
  if (subject === null) {
    if (pending.is_passive) return answer_error(STATUS.invalid_nameid_policy, "The user has no e-mail address.", "no_email", user.id);
    await end_pending(idp, id);
    await audit(idp, { outcome: "failure", ip, user_id: user.id, details: { ...base, reason: "no_email" } });
    throw new PageError(
      "Your account has no e-mail address",
      `${sp.name} identifies you by your e-mail address. Add one on your account page (${account_url(idp)}), then try again.`,
      "access_denied",
    );
  }
  // Single use: of two tabs or a double submit, one goes on.
  if (!(await end_pending(idp, id))) throw expired_pending();
  // The operator's custom attributes, under their claim names (attributes/claims.ts).
  const custom = (await attribute_claims_of_users(idp.store, [user.id])).get(user.id) ?? {};
  let xml: string;
  try {
    xml = await success_response(idp, delivery, { name_id: subject, attributes: user_attributes(user, groups, sp.attributes, custom), session });
  } catch (error) {
    if (!(error instanceof NoEncryptionKey)) throw error;
    // Never the Assertion in the clear to a service provider set to have it encrypted.
    await audit(idp, { outcome: "failure", ip, user_id: user.id, details: { ...base, reason: "no_encryption_key" } });
    throw new PageError(
      "Application misconfigured",
      `${sp.name} is set to receive encrypted assertions but its metadata has no encryption certificate. Tell your administrator.`,
      "server_error",
    );
  }
  // A session participant (SAML Profiles §4.4): told when the session ends (slo.ts).
  await idp.store.add_saml_participant({
    session_id_hash: session.id_hash,
    entity_id: sp.entity_id,
    name_id: subject,
    session_index: session_index(session.id_hash, sp.entity_id),
    created_at: idp.now(),
  });
  await audit(idp, { outcome: "success", ip, user_id: user.id, details: { ...base, signed: pending.signed, nameid_format: sp.nameid_format, amr: session.amr } });
  return post_step(xml, pending, sp, set);
}

function post_step(xml: string, pending: PendingSaml, sp: SamlServiceProviderRow, cookies: CookieToSet[]): SsoStep {
  // SAML Bindings §3.5.3: RelayState goes back exactly as it came.
  const fields: Record<string, string> = { SAMLResponse: post_encoded(xml) };
  if (pending.relay_state !== null) fields.RelayState = pending.relay_state;
  return { kind: "post", acs: pending.acs, fields, cookies, sp_name: sp.name };
}
