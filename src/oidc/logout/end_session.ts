/**
 * Ending a browser session at logout (OIDC RP-Initiated Logout §2: "If the End-User says 'yes',
 * then the OP MUST log out the End-User").
 *
 * 1. The clients the session signed in to are read first (their rows go with the session).
 * 2. Tokens bound to the session are revoked — access tokens and refresh tokens — except refresh
 *    tokens granted offline_access, which exist to work while the user is not signed in (OIDC
 *    Core §11). A client that asked for offline_access keeps it until the user revokes it.
 * 3. The session row is deleted; only the caller that deleted it goes on, so two tabs logging
 *    out at once send one set of logout tokens.
 * 4. An audit event `logout`, then back-channel logout tokens (backchannel.ts) with a bounded
 *    wait, and the front-channel iframes (frontchannel.ts) for the signed-out page, with those
 *    that carry a LogoutRequest to each SAML service provider of the session (saml/logout_frames.ts). The caller
 *    clears the cookie and answers the browser.
 */
import { record_event } from "../audit.ts";
import type { Provider } from "../provider.ts";
import type { ActiveSession } from "../signin/sessions.ts";
import { notify_clients, type Delivery } from "./backchannel.ts";
import { session_sid } from "./sid.ts";
import { frontchannel_frames, type FrontChannelFrame } from "./frontchannel.ts";
import { saml_logout_frames } from "../saml/logout_frames.ts";

export type LogoutContext = {
  /** The client that asked (client_id or the hint's audience), for the audit trail. */
  client_id: string | null;
  ip: string | null;
  /**
   * "rp": the RP's request with a hint for this session; "user": the user confirmed; "account":
   * the user ended it from another browser (the account page's list of sessions); "admin": an
   * administrator ended it from the admin console; "saml": a SAML service provider's
   * LogoutRequest (saml/slo.ts).
   */
  initiator: "rp" | "user" | "account" | "admin" | "saml";
  /** The SAML service provider that asked: it is answered, not sent a LogoutRequest. */
  saml_entity_id?: string;
};

export type LogoutOutcome = { ended: boolean; tokens_revoked: number; backchannel: Delivery[]; frontchannel: FrontChannelFrame[] };

export async function end_session(idp: Provider, active: ActiveSession, context: LogoutContext): Promise<LogoutOutcome> {
  const id_hash = active.session.id_hash;
  const now = idp.now();
  const client_ids = await idp.store.list_session_clients(id_hash);
  const participants = (await idp.store.list_saml_participants(id_hash)).filter((p) => p.entity_id !== context.saml_entity_id);
  const tokens_revoked = await idp.store.revoke_by_session(id_hash, now, { keep_offline_refresh: true });
  const ended = await idp.store.delete_session(id_hash);
  if (!ended) return { ended, tokens_revoked, backchannel: [], frontchannel: [] };
  await record_event(idp, {
    type: "logout",
    outcome: "success",
    user_id: active.user.id,
    client_id: context.client_id,
    ip: context.ip,
    at: now,
    details: { initiator: context.initiator, tokens_revoked, clients: client_ids, saml: participants.map((p) => p.entity_id) },
  });
  let backchannel: Delivery[] = [];
  const sid = session_sid(id_hash);
  const frontchannel = [...(await frontchannel_frames(idp, client_ids, sid)), ...(await saml_logout_frames(idp, participants))];
  try {
    backchannel = await notify_clients(idp, client_ids, { user_id: active.user.id, sid });
  } catch (error) {
    // The user is signed out whatever happens to the notifications.
    idp.log({ level: "error", msg: "back-channel logout failed", error: error instanceof Error ? error.name : "Error" });
  }
  return { ended, tokens_revoked, backchannel, frontchannel };
}
