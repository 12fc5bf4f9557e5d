/**
 * OIDC Front-Channel Logout 1.0: when a session ends in the browser, the signed-out page loads
 * each client's `frontchannel_logout_uri` in an iframe, so the client clears its own session
 * with its own cookies (§3: "the OP renders <iframe src="frontchannel_logout_uri"> in a page").
 *
 * - §2: the clients are those the session signed in to (store.list_session_clients, as for
 *   back-channel logout).
 * - §3: `iss` and `sid` are added to the query when the client registered
 *   frontchannel_logout_session_required (its own query is kept; sid as in its ID Tokens).
 * - The page's CSP names exactly these origins in frame-src (http/pages/signed_out.ts).
 */
import { csp_source } from "../clients/metadata.ts";
import type { Provider } from "../provider.ts";
import type { ClientRow } from "../../store/types.ts";

/**
 * One iframe of the signed-out page: `url` loaded, or with `post` (a SAML LogoutRequest over
 * HTTP-POST, saml/slo.ts) a form of these fields posted to `url` inside the iframe.
 */
export type FrontChannelFrame = { client_id: string; client_name: string; url: string; origin: string; post?: Record<string, string>; saml?: boolean };

/** §3: the URL the iframe loads for `client` when session `sid` ends. */
export function frontchannel_url(idp: Provider, client: ClientRow, sid: string): string | null {
  const uri = client.metadata.frontchannel_logout_uri;
  if (typeof uri !== "string") return null;
  if (client.metadata.frontchannel_logout_session_required !== true) return uri;
  const query = new URLSearchParams({ iss: idp.config.issuer, sid }).toString();
  return `${uri}${uri.includes("?") ? "&" : "?"}${query}`;
}

/** The iframes for the clients of an ended session (unknown clients and those without the URI skipped). */
export async function frontchannel_frames(idp: Provider, client_ids: readonly string[], sid: string): Promise<FrontChannelFrame[]> {
  const clients = await Promise.all(client_ids.map((id) => idp.store.get_client(id)));
  const frames: FrontChannelFrame[] = [];
  for (const client of clients) {
    if (client === null) continue;
    const url = frontchannel_url(idp, client, sid);
    const origin = url === null ? null : csp_source(url);
    if (url === null || origin === null) continue;
    frames.push({ client_id: client.client_id, client_name: client.metadata.client_name ?? client.client_id, url, origin });
  }
  return frames;
}
