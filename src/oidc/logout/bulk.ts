/**
 * Ending a user's sessions in bulk tells the clients as a sign-out does (end_session.ts): an
 * administrator's "end sessions" (admin API and console), disabling or deleting the user, a reset
 * of the second factors, a password reset, a password change on the account page (which keeps
 * its own session). Each session that ended this way sends a logout token to every client it
 * signed in to that registered a backchannel_logout_uri (OIDC Back-Channel Logout 1.0 §2.4–2.6,
 * backchannel.ts): one per session and client, with `sub` and that session's `sid`, so a client
 * that requires `sid` (backchannel_logout_session_required) has it, and a session that stays
 * (the account page's own) is not signed out at the client.
 *
 * Back-channel only. Front-channel logout (frontchannel.ts, §3 of its spec) loads each client's
 * URI in the browser whose session ended, where the client's cookies are; a bulk end happens
 * in another browser (the administrator's, wherever a reset link is opened, the one session the
 * account page keeps), where those iframes would sign out the wrong sessions or none. So no
 * front-channel page is shown, not even on the account page. A client without a
 * backchannel_logout_uri is not told; the tokens it got through those sessions are revoked.
 *
 * The command line ends sessions the same way (src/cli/logout.ts) and waits for the deliveries.
 *
 * The sessions and their clients are read before `end` runs (a session's client rows go with
 * it); those no longer in the store afterwards are the ones that ended. The request does not wait
 * for the deliveries: they start when the request is done with the store and each runs within
 * the outbound time limit (outbound.timeout_ms), logging its failure (client, host, reason;
 * never the token). Nothing retries, as for a single sign-out (§2.8 "MAY retry").
 */
import type { Provider } from "../provider.ts";
import { notify_clients } from "./backchannel.ts";
import { session_sid } from "./sid.ts";

type Ending = { id_hash: string; client_ids: string[] };

/**
 * Runs `end`, which ends sessions of user `user_id` (keeping `keep_id_hash`, if any), and sends
 * the back-channel logout of each session it ended; answers what `end` answered. When `end`
 * raises, nothing is sent. `wait_ms`: how long to wait for the deliveries (0 for a request,
 * which answers at once; the command line waits for them, or its process would end them).
 */
export async function with_backchannel_logout<T>(idp: Provider, user_id: string, end: () => Promise<T>, keep_id_hash?: string, wait_ms = 0): Promise<T> {
  const before = (await idp.store.list_sessions_for_user(user_id)).filter((session) => session.id_hash !== keep_id_hash);
  const ending: Ending[] = await Promise.all(before.map(async (session) => ({ id_hash: session.id_hash, client_ids: await idp.store.list_session_clients(session.id_hash) })));
  const result = await end();
  const with_clients = ending.filter((session) => session.client_ids.length > 0);
  if (with_clients.length === 0) return result;
  const left = new Set((await idp.store.list_sessions_for_user(user_id)).map((session) => session.id_hash));
  const ended = with_clients.filter((session) => !left.has(session.id_hash));
  // The clients are read now; with wait 0 the deliveries go on after the answer (backchannel.ts).
  await Promise.all(ended.map((session) => notify_clients(idp, session.client_ids, { user_id, sid: session_sid(session.id_hash) }, wait_ms))).catch((error: unknown) => {
    // The sessions are over whatever happens to the notifications.
    idp.log({ level: "error", msg: "back-channel logout failed", error: error instanceof Error ? error.name : "Error" });
  });
  return result;
}
