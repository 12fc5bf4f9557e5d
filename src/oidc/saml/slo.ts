/**
 * Single Logout (SAML Profiles §4.4) at our single logout service, `<issuer>/saml/slo`:
 *
 * - Service provider initiated (§4.4.3.1–§4.4.3.4): its LogoutRequest is checked
 *   (logout_request.ts); the sessions it names — those that gave it that NameID, with the
 *   SessionIndex given, looked up in store.find_saml_participants (a cross-site POST carries no
 *   session cookie) — end as an OpenID sign-out ends them (logout/end_session.ts: tokens
 *   revoked, back-channel logout tokens sent, the `logout` audit event), which also yields the
 *   front-channel iframes of the other participants, OpenID clients and SAML service providers
 *   alike. The browser then loads those and carries our signed LogoutResponse to the service
 *   provider's single logout service (its registered metadata only). Audited as `saml_logout`.
 * - Identity provider initiated (§4.4.3.1, the session ends here: /logout, the admin console's
 *   sign-out, or another service provider's LogoutRequest): `saml_logout_frames`
 *   (logout_frames.ts) gives each
 *   participant with a single logout service a signed LogoutRequest carrying the NameID and
 *   SessionIndex it was given, in a hidden iframe of the signed-out page (as OpenID
 *   Front-Channel Logout does, logout/frontchannel.ts): over HTTP-Redirect the iframe loads the
 *   URL; over HTTP-POST the iframe holds a form that posts itself (http/pages/signed_out.ts).
 *   Sessions ended with no browser (another device's session from the account page, an
 *   administrator's revocation) tell OpenID clients by back-channel logout only; SAML offers no
 *   back channel here (the SOAP binding is not supported).
 * - A LogoutResponse that comes back to us (the answer to our LogoutRequest, in its iframe)
 *   changes nothing: the session here is already gone.
 */
import { record_event } from "../audit.ts";
import { PageError } from "../errors.ts";
import { end_session } from "../logout/end_session.ts";
import type { FrontChannelFrame } from "../logout/frontchannel.ts";
import type { Provider } from "../provider.ts";
import type { JsonObject, SamlParticipantRow, SamlServiceProviderRow } from "../../store/types.ts";
import type { IncomingMessage } from "./authn_request.ts";
import { receive_logout_request } from "./logout_request.ts";
import { logout_response_xml, outgoing, type Outgoing } from "./logout_messages.ts";
import { STATUS } from "./names.ts";
import { SamlRefusal } from "./refusal.ts";

/** What the browser does after a LogoutRequest: load the iframes of the other participants, then carry the answer. */
export type SloStep = { kind: "answer"; message: Outgoing; frames: FrontChannelFrame[]; sp_name: string } | { kind: "acknowledged" };

function audit_logout(idp: Provider, outcome: "success" | "failure", ip: string, user_id: string | null, details: JsonObject): Promise<unknown> {
  return record_event(idp, { type: "saml_logout", outcome, user_id, ip, details });
}

/** A LogoutRequest (or a LogoutResponse to one of ours) at /saml/slo. */
export async function single_logout(idp: Provider, message: IncomingMessage | { binding: "response" }, ip: string): Promise<SloStep> {
  if (message.binding === "response") return { kind: "acknowledged" };
  const known: { sp: SamlServiceProviderRow | null } = { sp: null };
  let request: Awaited<ReturnType<typeof receive_logout_request>>;
  try {
    request = await receive_logout_request(idp, message, known);
  } catch (error) {
    if (!(error instanceof SamlRefusal)) throw error;
    await audit_logout(idp, "failure", ip, null, { entity_id: known.sp?.entity_id ?? null, binding: message.binding, reason: error.reason });
    throw new PageError("The application sent an invalid sign-out request", error.message, error.reason === "unknown_sp" ? "invalid_client" : "invalid_request").for_log({
      ...(known.sp === null ? {} : { client_id: known.sp.entity_id }),
      parameter: "SAMLRequest",
      value: error.reason,
    });
  }
  const { sp } = request;
  // SAML Core §3.7.1: the SessionIndexes name the sessions; none: every session that gave it this NameID.
  const found: SamlParticipantRow[] = [];
  for (const index of request.session_indexes.length === 0 ? [null] : request.session_indexes) {
    found.push(...(await idp.store.find_saml_participants(sp.entity_id, request.name_id.value, index)));
  }
  // The NameID must be the one given, format included (SAML Core §3.7.3.1).
  const matching = found.filter((p) => request.name_id.format === null || request.name_id.format === p.name_id.format);
  const frames: FrontChannelFrame[] = [];
  let ended = 0;
  let user_id: string | null = null;
  for (const hash of new Set(matching.map((p) => p.session_id_hash))) {
    const session = await idp.store.get_session(hash);
    const user = session === null ? null : await idp.store.get_user_by_id(session.user_id);
    if (session === null || user === null) continue;
    user_id = user.id;
    const outcome = await end_session(idp, { session, user }, { client_id: sp.entity_id, ip: ip || null, initiator: "saml", saml_entity_id: sp.entity_id });
    if (outcome.ended) ended += 1;
    frames.push(...outcome.frontchannel);
  }
  await audit_logout(idp, "success", ip, user_id, { entity_id: sp.entity_id, binding: request.binding, signed: request.signed, sessions: ended });
  // SAML Core §3.7.3.2: the principal is no longer signed in here (a session already gone counts as ended).
  const xml = logout_response_xml(idp, request.slo.response_location, request.id, STATUS.success);
  return { kind: "answer", message: outgoing(idp, xml, request.slo, "SAMLResponse", request.slo.response_location, request.relay_state), frames, sp_name: sp.name };
}
