/**
 * OIDC Back-Channel Logout 1.0: when a session ends, every client that signed in through it and
 * registered a backchannel_logout_uri gets a logout token, server to server.
 *
 * - §2.3: the clients of a session are remembered at code issuance (store.add_session_client).
 * - §2.4: the logout token is a JWT signed like the client's ID Tokens, typed `logout+jwt`, with
 *   iss, aud, iat, exp, jti, sub, sid and the back-channel logout event; never a nonce.
 * - §2.5: POSTed as application/x-www-form-urlencoded `logout_token=...`. §2.8: the RP answers
 *   200 (or 204); anything else is a failure. The POST goes through outbound/fetch.ts: https (http only
 *   when the operator allows it), public addresses unless allow-listed, no redirects (a
 *   registered URI must not bounce the request elsewhere), the outbound time limits.
 *
 * Deliveries run concurrently, each within outbound.timeout_ms; the user's response waits for
 * them at most RESPONSE_WAIT_MS, after which they finish in the background. Failures are logged (client,
 * host, reason), never the token. Nothing retries: a lost notification leaves the RP session to
 * its own expiry, as §2.8 allows ("the OP MAY retry").
 */
import { random_token } from "../crypto/secrets.ts";
import { id_token_alg } from "../tokens/id_token.ts";
import { OutboundError, outbound_fetch } from "../outbound/fetch.ts";
import { subject_for } from "../claims/pairwise.ts";
import type { Provider } from "../provider.ts";
import { is_loopback_host } from "../clients/redirect_uris.ts";
import type { ClientRow } from "../../store/types.ts";

export const BACKCHANNEL_LOGOUT_EVENT = "http://schemas.openid.net/event/backchannel-logout";
/** §2.4 recommends a short lifetime: the token is used at once. */
export const LOGOUT_TOKEN_TTL_SECONDS = 120;
/** How long the logout response waits for the deliveries (they go on after it). */
export const RESPONSE_WAIT_MS = 2000;

export type LoggedOutSession = { user_id: string; sid: string };

export type Delivery = { client_id: string; ok: boolean; reason?: string };

/** §2.4: the claims of a logout token for one client. */
export async function sign_logout_token(idp: Provider, client: ClientRow, session: LoggedOutSession): Promise<string> {
  const now = idp.now();
  const payload = {
    iss: idp.config.issuer,
    aud: client.client_id,
    iat: now,
    exp: now + LOGOUT_TOKEN_TTL_SECONDS,
    jti: random_token(16),
    // OIDC Core §8: the sub this client knows the user by (pairwise.ts).
    sub: subject_for(idp, client, session.user_id),
    sid: session.sid,
    events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
  };
  // §2.6: the RP validates it "in the same way that an ID Token signature is validated".
  return idp.keys.sign(payload, { alg: id_token_alg(idp, client), typ: "logout+jwt" });
}

/** Why the provider will not call `uri`, or null: https anywhere, http on loopback only, no fragment. */
export function backchannel_uri_problem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "is not an absolute URL";
  }
  if (uri.includes("#")) return "has a fragment";
  if (url.username !== "" || url.password !== "") return "has user credentials";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && is_loopback_host(url.hostname)) return null;
  return "is neither https nor http on a loopback host";
}

/** One POST (§2.5); resolves with the outcome, never rejects. */
export async function deliver_logout_token(idp: Provider, client: ClientRow, session: LoggedOutSession): Promise<Delivery> {
  const uri = client.metadata.backchannel_logout_uri;
  const fail = (reason: string): Delivery => {
    idp.log({ level: "warn", msg: "back-channel logout failed", client_id: client.client_id, host: host_of(uri), reason });
    return { client_id: client.client_id, ok: false, reason };
  };
  if (typeof uri !== "string") return fail("no backchannel_logout_uri");
  const problem = backchannel_uri_problem(uri);
  if (problem !== null) return fail(`backchannel_logout_uri ${problem}`);
  try {
    const token = await sign_logout_token(idp, client, session);
    await outbound_fetch(idp, uri, {
      purpose: "backchannel_logout_uri",
      client_id: client.client_id,
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ logout_token: token }).toString(),
      // §2.8: 200 OK on success (204 is common too); 400 when the RP refused the token.
      accept_status: [200, 204],
      max_bytes: 0,
    });
    idp.log({ level: "info", msg: "back-channel logout delivered", client_id: client.client_id, host: host_of(uri) });
    return { client_id: client.client_id, ok: true };
  } catch (error) {
    if (error instanceof OutboundError) return fail(error.reason);
    return fail(`${error instanceof Error ? error.name : "Error"}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Sends the logout token to each of `client_ids` that registered a backchannel_logout_uri.
 * Resolves when all are done or after `wait_ms`, whichever comes first, with the outcomes known
 * by then; the rest carry on and log their own outcome.
 */
export async function notify_clients(idp: Provider, client_ids: readonly string[], session: LoggedOutSession, wait_ms = RESPONSE_WAIT_MS): Promise<Delivery[]> {
  const clients = await Promise.all(client_ids.map((id) => idp.store.get_client(id)));
  const targets = clients.filter((client): client is ClientRow => client !== null && typeof client.metadata.backchannel_logout_uri === "string");
  if (targets.length === 0) return [];
  const done: Delivery[] = [];
  const all = Promise.all(targets.map((client) => deliver_logout_token(idp, client, session).then((outcome) => void done.push(outcome))));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, wait_ms)));
  await Promise.race([all, waited]);
  clearTimeout(timer);
  return done;
}

function host_of(uri: unknown): string | null {
  if (typeof uri !== "string") return null;
  try {
    return new URL(uri).host;
  } catch {
    return null;
  }
}
